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
   * The kinds `packageId` may reach, given what the project's packages publish.
   *
   * @param packageId The package calling.
   * @param published Kinds published by the packages installed in the project.
   */
  constructor(packageId: string, published: Iterable<string>) {
    this.#id = packageId;
    this.#published = new Set(published);
  }

  /**
   * Whether the package may read records of `kind`: its own, or published.
   *
   * @param kind A record kind, such as `issues.issue`.
   */
  canRead(kind: string): boolean {
    return kind.startsWith(`${this.#id}.`) || this.#published.has(kind);
  }

  /**
   * Refuses reading records of `kind`, by name, unless {@linkcode MemoryAccess.canRead} allows it.
   *
   * @param kind A record kind, such as `issues.issue`.
   * @throws {MemoryAccessError} when `kind` is neither the package's own nor published.
   */
  assertReadKind(kind: string): void {
    if (this.canRead(kind)) return;
    throw new MemoryAccessError(
      `${this.#id} cannot read kind ${kind}: it is not ${this.#id}'s own and no installed package publishes it`,
    );
  }

  /**
   * Refuses reading the record at `key` unless its kind may be read.
   *
   * @param key A record key, `kind/name`.
   * @throws {InvalidInputError} when `key` is not a valid record key.
   * @throws {MemoryAccessError} when the record's kind may not be read.
   */
  assertReadKey(key: string): void {
    this.assertReadKind(parseRecordKey(key).kind);
  }

  /**
   * Refuses writing (or removing) the record at `key` unless its kind is under
   * the package's own prefix, `<id>.`.
   *
   * @param key A record key, `kind/name`.
   * @param verb What the refusal says the package tried: `write` or `remove`.
   * @throws {InvalidInputError} when `key` is not a valid record key.
   * @throws {MemoryAccessError} when the record's kind is outside the package's prefix.
   */
  assertWriteKey(key: string, verb = "write"): void {
    const { kind } = parseRecordKey(key);
    if (kind.startsWith(`${this.#id}.`)) return;
    throw new MemoryAccessError(
      `${this.#id} cannot ${verb} ${key}: a package may ${verb} only kinds under "${this.#id}."`,
    );
  }
}
