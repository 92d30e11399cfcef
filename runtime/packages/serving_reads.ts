/**
 * The approvals and refs a handler call resolves its packages from, kept
 * between calls and proven by the call's claim rather than read again: the
 * claim's atomic write checks each entry's versionstamp, so a call that
 * resolved from entries another process has since changed is refused its
 * claim before anything of it counts, and is made again from a fresh read.
 *
 * @module
 */
import { approvalKey, packageRefKey } from "./keys.ts";
import type { Approval } from "./approval.ts";
import type { ServingEntries } from "./serving.ts";
import type { PackageRef } from "./store.ts";

/** Keys one Deno KV `getMany` reads at most. */
const READ_AT_ONCE = 10;

/**
 * Ids a project may list for its entries to be kept and checked: a claim's
 * write may hold 100 checks, two for each id and a few of its own.
 */
const CHECKED_IDS = 32;

/** Projects whose entries are kept at most; past it they are forgotten and read again. */
const KEPT = 1_024;

/**
 * One call's view of the approvals and refs of the ids its project lists,
 * with what its claim adds to prove them: a check of each entry as it was
 * read (nothing when the project lists more than {@linkcode CHECKED_IDS}).
 */
export class ServingSnapshot {
  /** Each id's approval and ref, for {@linkcode servingPackage}. */
  readonly entries: Map<string, ServingEntries>;
  /** Whether the entries were kept from an earlier call rather than read for this one. */
  readonly kept: boolean;
  /** The keys the claim reads when it reads, in the order of `add`'s entries. */
  readonly keys: Deno.KvKey[];
  #read: Deno.KvEntryMaybe<unknown>[];
  #stale = false;

  /**
   * A view of entries as read.
   *
   * @param ids The project's listed ids.
   * @param read The approval and ref of each id, in turn.
   * @param kept Whether they were kept from an earlier call.
   * @param checked Whether the claim checks them; never when the project lists too many ids.
   */
  constructor(
    ids: readonly string[],
    read: Deno.KvEntryMaybe<unknown>[],
    kept: boolean,
    checked = true,
  ) {
    this.entries = new Map(ids.map((id, i) => [id, {
      approval: read[2 * i].value as Approval | null,
      ref: read[2 * i + 1].value as PackageRef | null,
    }]));
    this.kept = kept;
    this.#read = read;
    this.keys = checked && ids.length <= CHECKED_IDS ? read.map((entry) => entry.key) : [];
  }

  /** The claim found an entry other than the one this view holds: the call is to be made again. */
  get stale(): boolean {
    return this.#stale;
  }

  /** The entries as this view holds them, for the claim's first try without a read. */
  remembered(): Deno.KvEntryMaybe<unknown>[] {
    return this.#read.slice(0, this.keys.length);
  }

  /**
   * Adds a check of each entry to the claim's write, given the entries of
   * `keys` as the claim has them.
   *
   * @throws {Error} when one differs from this view's; {@linkcode ServingSnapshot.stale} then says so.
   */
  add(op: Deno.AtomicOperation, entries: Deno.KvEntryMaybe<unknown>[]): void {
    for (let i = 0; i < this.keys.length; i++) {
      if (entries[i].versionstamp !== this.#read[i].versionstamp) {
        this.#stale = true;
        throw new Error("An approval or a ref changed since it was read; the call is made again");
      }
      op.check(this.#read[i]);
    }
  }
}

/** Options for {@linkcode ServingReads.read}. */
export interface ServingReadOptions {
  /** Whether the claim checks the entries read (by default it does). */
  checked?: boolean;
}

/**
 * The approvals and refs of each project's listed ids, as this process last
 * read them. A view taken from here must be proven by the claim that uses it
 * ({@linkcode ServingSnapshot.add}); one found stale is forgotten.
 */
export class ServingReads {
  #kept = new Map<string, { ids: string; read: Deno.KvEntryMaybe<unknown>[] }>();

  /**
   * The entries kept for `project`'s ids, or null when none are kept for
   * exactly these ids.
   *
   * @param project The project's resolved folder.
   * @param ids The ids the project lists.
   */
  kept(project: string, ids: readonly string[]): ServingSnapshot | null {
    const kept = this.#kept.get(project);
    if (!kept || kept.ids !== JSON.stringify(ids)) return null;
    return new ServingSnapshot(ids, kept.read, true);
  }

  /**
   * Reads the approval and ref of every id at once (one read for up to five
   * ids) and keeps them when few enough to be checked.
   *
   * @param kv The installation's KV.
   * @param project The project's resolved folder.
   * @param ids The ids the project lists.
   * @param options Whether the claim is to check them (by default it is).
   */
  async read(
    kv: Deno.Kv,
    project: string,
    ids: readonly string[],
    options: ServingReadOptions = {},
  ): Promise<ServingSnapshot> {
    const keys = ids.flatMap((id) => [approvalKey(project, id), packageRefKey(id)]);
    const reads: Promise<Deno.KvEntryMaybe<unknown>[]>[] = [];
    for (let at = 0; at < keys.length; at += READ_AT_ONCE) {
      reads.push(kv.getMany<unknown[]>(keys.slice(at, at + READ_AT_ONCE)));
    }
    const read = (await Promise.all(reads)).flat();
    this.#kept.delete(project);
    if (ids.length <= CHECKED_IDS) {
      if (this.#kept.size >= KEPT) this.#kept.clear();
      this.#kept.set(project, { ids: JSON.stringify(ids), read });
    }
    return new ServingSnapshot(ids, read, false, options.checked ?? true);
  }

  /**
   * Forgets what is kept for `project`: its next call reads.
   *
   * @param project The project's resolved folder.
   */
  forget(project: string): void {
    this.#kept.delete(project);
  }
}
