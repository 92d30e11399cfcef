/**
 * Which record kinds a package may read and write in a project: it writes only
 * under its own prefix (`<id>.`); it reads its own kinds and the kinds other
 * packages publish, and is refused others' unpublished kinds by name.
 *
 * @module
 */
import { MemoryAccessError } from "../errors.ts";
import { parseRecordKey } from "./record.ts";

/** The kinds a package may reach in one project. */
export class MemoryAccess {
  #id: string;
  #published: ReadonlySet<string>;

  /**
   * @param packageId The package calling.
   * @param published Kinds published by the packages installed in the project.
   */
  constructor(packageId: string, published: Iterable<string>) {
    this.#id = packageId;
    this.#published = new Set(published);
  }

  /** Whether the package may read records of `kind`. */
  canRead(kind: string): boolean {
    return kind.startsWith(`${this.#id}.`) || this.#published.has(kind);
  }

  /** @throws {MemoryAccessError} when `kind` is neither the package's own nor published. */
  assertReadKind(kind: string): void {
    if (this.canRead(kind)) return;
    throw new MemoryAccessError(
      `${this.#id} cannot read kind ${kind}: it is not ${this.#id}'s own and no installed package publishes it`,
    );
  }

  /** @throws {MemoryAccessError} when the record's kind may not be read. */
  assertReadKey(key: string): void {
    this.assertReadKind(parseRecordKey(key).kind);
  }

  /** @throws {MemoryAccessError} when the record's kind is outside the package's prefix. */
  assertWriteKey(key: string, verb = "write"): void {
    const { kind } = parseRecordKey(key);
    if (kind.startsWith(`${this.#id}.`)) return;
    throw new MemoryAccessError(
      `${this.#id} cannot ${verb} ${key}: a package may ${verb} only kinds under "${this.#id}."`,
    );
  }
}
