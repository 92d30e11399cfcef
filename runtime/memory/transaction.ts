/**
 * The staged view of project memory one handler call works in. Writes and
 * removals are staged, reads see them (the call reads its own writes), and
 * `commit()` applies them in one Deno KV atomic operation, only if no record
 * they were based on changed and the package's generation is still the one the
 * call started under — and, for a device's task step, its account epoch the one
 * the step began under. A call that fails, is superseded or fenced leaves nothing.
 *
 * Other domains stage their own entries beside the records through
 * {@linkcode MemoryTransaction.stageEntry} — the work a call orders is one,
 * the project's outbox of orders — and they are committed in the same atomic
 * operation, so a call's records and its orders stand or fall together.
 *
 * Which kinds a package may read or write is decided before this is called.
 *
 * @module
 */

import {
  ConflictError,
  FencedError,
  PayloadTooLargeError,
  SupersededError,
  SyncError,
} from "../errors.ts";
import type { Generation } from "./generation.ts";
import {
  accountEpochKey,
  contentChunkKey,
  generationKey,
  isRecordSpaceKey,
  kindCommitsKey,
  recordKey,
} from "./keys.ts";
import {
  encodeStoredRecord,
  listRecordPage,
  readContentOf,
  readStoredEntry,
  RECORD_WRITERS_KEPT,
  type RecordWriter,
  splitContent,
  type StoredRecord,
  summaryOf,
} from "./store.ts";
import type { RecordCursors } from "./record_cursors.ts";
import { checkRecordInput, compareRecordKeys, parseRecordKey } from "./record.ts";
import type {
  RecordInput,
  RecordPage,
  RecordQuery,
  RecordSummary,
  RemoveResult,
  WriteResult,
} from "../extension_api/service.ts";

/** The sizes one transaction's commit may reach; see {@linkcode TRANSACTION_LIMITS}. */
export interface TransactionLimits {
  /** Keys and values the commit writes or checks, in bytes. */
  maxBytes: number;
  /** Sets and deletes in the commit. */
  maxMutations: number;
  /**
   * Checks in the commit: one per record changed, one for the generation, one for an epoch.
   * A commit of more records checks each kind's count of commits instead.
   */
  maxChecks: number;
  /** Encoded size of the keys the commit sets or deletes, in bytes (KV allows 80 KiB). */
  maxMutationKeyBytes: number;
  /** One value the commit sets, in bytes (KV's own limit). */
  maxValueBytes: number;
}

/**
 * What one transaction may stage, records and other entries together. Deno KV
 * refuses an atomic operation over 800 KiB of mutations, 1000 mutations, 100
 * checks, 80 KiB of mutated keys or a value over 64 KiB; staying under these
 * means a commit never fails for its size.
 */
export const TRANSACTION_LIMITS: Readonly<TransactionLimits> = Object.freeze({
  maxBytes: 700 * 1024,
  maxMutations: 1000,
  maxChecks: 100,
  maxMutationKeyBytes: 72 * 1024,
  maxValueBytes: 64 * 1024,
});

/** Options of a `MemoryTransaction`. */
export interface MemoryTransactionOptions {
  /** The package whose handler call this is; recorded as `updatedBy`. Omit for a person. */
  packageId?: string;
  /**
   * The package's generation as read when the call started; required with
   * `packageId`. While it is still being read, the transaction's reads are
   * made at once, behind it in the memory's one queue of operations, and
   * answer only once it is read (or fail as it failed).
   */
  generation?: Generation | Promise<Generation>;
  /**
   * For a device's task step: the account epoch the step began under
   * (`AccountGrant.epoch`); requires `packageId`. A commit that writes
   * checks, in the same atomic operation, that the package's account epoch
   * is still this, and is refused with `FencedError` otherwise. A
   * transaction that staged nothing has nothing to fence, and does not read it.
   */
  accountEpoch?: number;
  /**
   * The generation given was kept from an earlier call, not read for this
   * one: the transaction's reads are made without reading it (what they read
   * does not depend on it), and its first write reads it to prove it before
   * anything is staged. Found unchanged, it is the one the call runs under;
   * found moved on before the transaction read anything, the current one is;
   * found moved on after it read, the transaction may have read under the
   * old one, and the write — every write, and the commit — is refused with
   * `SupersededError` ({@linkcode MemoryTransaction.generationMoved}). Found
   * moved on by a bump {@linkcode MemoryTransactionOptions.bumpedSince} tells
   * of, the call was superseded while it ran, whatever it read.
   */
  generationKept?: boolean;
  /**
   * Whether the package's generation was bumped in this process since the
   * call started; with `generationKept`, a generation found moved on by such
   * a bump superseded the call. Never when absent.
   */
  bumpedSince?: () => boolean;
  /** Writer recorded as `updatedBy` when there is no `packageId`; defaults to `person`. */
  by?: string;
  /** Clock for `updatedAt`. */
  now?: () => Date;
  /**
   * The project whose memory this is. Its listings' cursors are bound to it,
   * so a cursor issued in one project is refused in another.
   */
  project?: string;
  /**
   * The id of the receipt of the handler call this transaction is, kept with
   * each revision it writes ({@linkcode RecordWriter}), so a record tells
   * which calls wrote it. Absent for a write outside a call.
   */
  receiptId?: string;
  /**
   * Seals the cursors of this transaction's listings. The host passes the
   * installation's, so a cursor a handler keeps stays good in later calls;
   * the process's own when absent.
   */
  cursors?: RecordCursors;
}

/** How {@linkcode MemoryTransaction.list} lists, besides the query. */
export interface TransactionListOptions {
  /**
   * Whether the reader may see records of a kind; records it may not are
   * passed over before the page is counted. Every kind when absent.
   */
  readable?: (kind: string) => boolean;
}

/** One record a commit wrote or removed. */
export interface RecordChange {
  /** The record's key, `kind/name`. */
  key: string;
  /** The revision written; for a removal, the revision the record had. */
  revision: number;
  /** The record was removed. */
  removed?: true;
}

/** What `commit()` applied. */
export interface CommitResult {
  /**
   * The versionstamp of the commit. A package's transaction that staged
   * nothing writes nothing: it checks the generation by reading it, and this is
   * the generation's versionstamp (empty while it was never set).
   */
  versionstamp: string;
  /** Keys written, in key order. */
  written: string[];
  /** Keys removed, in key order. */
  removed: string[];
  /** Every record written or removed, with its revision, in key order. */
  changes: RecordChange[];
}

/** What a commit will do for one key, counted against `TRANSACTION_LIMITS`. */
interface Cost {
  bytes: number;
  mutations: number;
  mutationKeyBytes: number;
}

/** One key's staged change. */
interface Staged {
  /** The committed metadata the change is based on, and its versionstamp to check. */
  base: StoredRecord | null;
  baseVersionstamp: string | null;
  /** The new metadata, or null for a removal. */
  next: StoredRecord | null;
  /** New content when `next` names content other than the base's; null otherwise. */
  content: string | null;
  chunks: Uint8Array[];
  cost: Cost;
}

/** An entry other than a record, staged to be set with the records. */
interface StagedEntry {
  key: Deno.KvKey;
  value: Uint8Array;
  cost: Cost;
}

type State = "open" | "committed" | "discarded";

const encoder = new TextEncoder();

/** An upper bound of a key's size as Deno KV encodes it. */
function kvKeyBytes(key: Deno.KvKey): number {
  let bytes = 0;
  for (const part of key) {
    // A string part is a tag, its UTF-8 and a terminator; a number is a tag and 8 bytes.
    bytes += typeof part === "string" ? encoder.encode(part).byteLength + 2 : 9;
  }
  return bytes;
}

function quote(key: string): string {
  return JSON.stringify(key);
}

/**
 * A handler call's view of project memory, with its writes staged until
 * `commit()`. Operations run one at a time in the order they were called, so
 * a read issued after a write sees it even when the write was not awaited.
 */
export class MemoryTransaction {
  #kv: Deno.Kv;
  #packageId: string | null;
  #project: string | null;
  #generation: Generation | null;
  /** The generation while it is still being read; null once read, or when there is none. */
  #generationRead: Promise<Generation> | null = null;
  /** The account epoch a task step began under; null for any other call. */
  #accountEpoch: number | null;
  /** The generation was kept from an earlier call and is not proven by a read in this one yet. */
  #generationUnproven = false;
  /** A read was made while the generation was unproven. */
  #readUnproven = false;
  /** The generation was found moved on after a read was made under the one kept. */
  #generationMoved: Generation | null = null;
  /** It moved on by a bump made while the call ran: superseded, not made again. */
  #movedWhileRunning = false;
  #bumpedSince: () => boolean;
  #writer: string;
  #now: () => Date;
  #cursors: RecordCursors | undefined;
  #receiptId: string | undefined;
  #staged = new Map<string, Staged>();
  /** The kinds of the records staged, with how many of each. */
  #kinds = new Map<string, number>();
  /** What adding one to each staged kind's count of commits adds to the commit. */
  #kindsCost: Cost = { bytes: 0, mutations: 0, mutationKeyBytes: 0 };
  #entries = new Map<string, StagedEntry>();
  #total: Cost = { bytes: 0, mutations: 0, mutationKeyBytes: 0 };
  #state: State = "open";
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * Starts a transaction over project memory `kv`.
   *
   * @param kv The project's memory KV.
   * @param options The calling package and the generation its call started
   *   under (or the person writing), and the clock.
   * @throws {TypeError} when `packageId` is given without `generation`, or
   *   `accountEpoch` without `packageId` or as anything but a whole number from 0.
   */
  constructor(kv: Deno.Kv, options: MemoryTransactionOptions = {}) {
    if (options.packageId !== undefined && options.generation === undefined) {
      throw new TypeError("A package's transaction needs the generation its call started under.");
    }
    if (options.accountEpoch !== undefined) {
      if (options.packageId === undefined) {
        throw new TypeError("An account epoch fences a package's transaction; give its packageId.");
      }
      if (!Number.isSafeInteger(options.accountEpoch) || options.accountEpoch < 0) {
        throw new TypeError(
          `An account epoch is a whole number from 0, got ${String(options.accountEpoch)}.`,
        );
      }
    }
    this.#accountEpoch = options.accountEpoch ?? null;
    this.#kv = kv;
    this.#packageId = options.packageId ?? null;
    this.#project = options.project ?? null;
    if (options.generation instanceof Promise) {
      this.#generation = null;
      const read = options.generation.then((generation) => {
        this.#generation = generation;
        if (this.#generationRead === read) this.#generationRead = null;
        return generation;
      });
      this.#generationRead = read;
      // A transaction discarded unused never asks; its generation failing is no one's failure.
      read.catch(() => {});
    } else {
      this.#generation = options.generation ?? null;
      this.#generationUnproven = options.generationKept === true && this.#generation !== null &&
        this.#packageId !== null;
    }
    this.#writer = options.packageId ?? options.by ?? "person";
    this.#now = options.now ?? (() => new Date());
    this.#cursors = options.cursors;
    this.#receiptId = options.receiptId;
    this.#bumpedSince = options.bumpedSince ?? (() => false);
  }

  /**
   * The generation the transaction runs under, once read or proven in it;
   * null while it is still being read, was kept and is not proven yet, or
   * was found moved on.
   */
  get provenGeneration(): Generation | null {
    if (this.#generationRead !== null || this.#generationUnproven) return null;
    return this.#generationMoved === null ? this.#generation : null;
  }

  /**
   * The generation kept from an earlier call was found moved on by the first
   * write, after the transaction had read, by a bump not made in this process
   * while the call ran (it may have been made before the call started): it
   * may have read under the old one, so it writes and commits nothing. Made
   * again, the call reads the generation first.
   */
  get generationMoved(): boolean {
    return this.#generationMoved !== null && !this.#movedWhileRunning;
  }

  /**
   * The refusal its writes and commit met, when a kept generation was found
   * moved on (made again or not); null otherwise.
   */
  get supersededBy(): SupersededError | null {
    return this.#generationMoved === null ? null : this.#superseded(this.#generationMoved);
  }

  /**
   * Proves a generation kept from an earlier call now, in turn after the
   * operations asked before, as the first write would (see
   * {@linkcode MemoryTransactionOptions.generationKept}); resolves at once
   * when there is nothing to prove.
   *
   * @throws {SupersededError} when it moved on after the transaction read.
   */
  proveGeneration(): Promise<void> {
    if (this.#generationMoved !== null) {
      return Promise.reject(this.#superseded(this.#generationMoved));
    }
    if (!this.#generationUnproven || this.#state !== "open") return Promise.resolve();
    return this.#run(() => this.#proveGeneration());
  }

  /**
   * Lists records like {@linkcode listRecords}, with this transaction's changes applied.
   *
   * @param query Which records, how many, and from where.
   * @param options Which kinds the reader may see.
   * @throws {InvalidInputError} for a malformed query, or a cursor not issued
   *   to this transaction's package for this kind and prefix.
   */
  list(query: RecordQuery = {}, options: TransactionListOptions = {}): Promise<RecordPage> {
    return this.#read(() => {
      const overlay = new Map<string, StoredRecord | null>();
      for (const [key, staged] of this.#staged) overlay.set(key, staged.next);
      return listRecordPage(this.#kv, query, {
        overlay,
        readable: options.readable,
        // A cursor is the package's own, in this project: another package, a
        // person, or the same package in another project cannot use it.
        reader: JSON.stringify([
          this.#packageId !== null ? `package ${this.#packageId}` : `writer ${this.#writer}`,
          this.#project,
        ]),
        cursors: this.#cursors,
      });
    });
  }

  /**
   * A record's summary as this transaction sees it, or null when there is no record.
   *
   * @param key A record key, `kind/name`.
   * @throws {InvalidInputError} when `key` is not a valid record key.
   */
  record(key: string): Promise<RecordSummary | null> {
    return this.#read(async () => {
      parseRecordKey(key);
      const staged = this.#staged.get(key);
      if (staged) return staged.next === null ? null : summaryOf(staged.next);
      const { record } = await readStoredEntry(this.#kv, key);
      return record === null ? null : summaryOf(record, true);
    });
  }

  /**
   * A record's content as this transaction sees it, or null when there is no record.
   *
   * @param key A record key, `kind/name`.
   * @throws {InvalidInputError} when `key` is not a valid record key.
   * @throws {ConflictError} when another writer changed the record while the call ran.
   */
  content(key: string): Promise<string | null> {
    return this.#read(async () => {
      parseRecordKey(key);
      const staged = this.#staged.get(key);
      if (staged) {
        if (staged.next === null) return null;
        if (staged.content !== null) return staged.content;
        return await this.#committedContent(key, staged.next);
      }
      const { record } = await readStoredEntry(this.#kv, key);
      return record === null ? null : await this.#committedContent(key, record);
    });
  }

  /**
   * Stages a write. Values not given keep the record's current ones (defaults
   * for a new record); `revision`, when given, must equal the current revision
   * (0: the record must not exist). Answers the revision the record will have.
   *
   * @param input The key, and the title, fields, content and expected revision to write.
   * @throws {InvalidInputError} for a malformed key or value.
   * @throws {PayloadTooLargeError} past a record's limits, or when the call's
   *   changes together would no longer fit one atomic write.
   * @throws {ConflictError} when `revision` is not the record's current one.
   */
  write(input: RecordInput): Promise<WriteResult> {
    return this.#write(async () => {
      const given = checkRecordInput(input);
      const key = given.key;
      const { kind } = parseRecordKey(key);
      const restaged = this.#staged.get(key);
      const prior = restaged ?? await this.#baseOf(key);
      const current = prior.next;
      const currentRevision = current?.revision ?? 0;
      if (given.revision !== undefined && given.revision !== currentRevision) {
        throw new ConflictError(
          `Record ${quote(key)} is at revision ${currentRevision}, ` +
            `but the write expected revision ${given.revision}; nothing was staged.`,
        );
      }

      const updatedAt = this.#now().toISOString();
      const writer: RecordWriter = {
        revision: currentRevision + 1,
        by: this.#writer,
        at: updatedAt,
        ...(this.#receiptId === undefined ? {} : { receipt: this.#receiptId }),
      };
      // A record written twice in one call keeps one writer for the call: its last revision.
      const earlier = (current?.writers ?? []).slice(restaged?.next ? 1 : 0);
      const next: StoredRecord = {
        key,
        kind,
        title: given.title ?? current?.title ?? "",
        fields: given.fields ?? structuredClone(current?.fields ?? {}),
        revision: currentRevision + 1,
        updatedAt,
        updatedBy: this.#writer,
        contentId: "",
        contentBytes: 0,
        chunks: 0,
        writers: [writer, ...earlier].slice(0, RECORD_WRITERS_KEPT),
      };
      const staged: Staged = { ...prior, next, content: null, chunks: [], cost: prior.cost };
      if (given.content !== undefined) {
        const split = splitContent(given.content);
        next.contentId = split.bytes === 0 ? "" : crypto.randomUUID();
        next.contentBytes = split.bytes;
        next.chunks = split.chunks.length;
        staged.content = given.content;
        staged.chunks = split.chunks;
      } else if (current !== null) {
        // Keep the content as it stands: staged earlier in this call, or committed.
        next.contentId = current.contentId;
        next.contentBytes = current.contentBytes;
        next.chunks = current.chunks;
        staged.content = prior.content;
        staged.chunks = prior.chunks;
      }
      this.#stage(key, staged);
      return { key, revision: next.revision };
    });
  }

  /**
   * Stages a removal. `removed` says whether there was a record to remove.
   *
   * @param key A record key, `kind/name`.
   * @throws {InvalidInputError} when `key` is not a valid record key.
   */
  remove(key: string): Promise<RemoveResult> {
    return this.#write(async () => {
      parseRecordKey(key);
      const prior = this.#staged.get(key) ?? await this.#baseOf(key);
      if (prior.next === null) return { key, removed: false };
      this.#stage(key, { ...prior, next: null, content: null, chunks: [] });
      return { key, removed: true };
    });
  }

  /**
   * Stages an entry of project memory that is not a record — a work order in
   * the project's outbox, say — to be set in the same atomic operation as the
   * records, so it is committed with them or not at all. Each key is staged
   * once and names an entry nothing else writes; it is checked against the
   * same limits as the records, so the commit never fails for its size.
   *
   * @param key Where the entry goes; never a record's, a content chunk's or a generation's.
   * @param value The entry's bytes, as stored.
   * @param what What is staged, for a refusal's message, such as `work.order()`.
   * @throws {PayloadTooLargeError} when the value, or the call's records and
   *   entries together, would no longer fit one atomic write.
   * @throws {TypeError} for a key of the records' own, or one already staged.
   */
  stageEntry(key: Deno.KvKey, value: Uint8Array, what: string): Promise<void> {
    return this.#write(() => {
      const id = JSON.stringify(key);
      if (isRecordSpaceKey(key)) {
        throw new TypeError(
          `${what} cannot stage ${id}: records, content and generations are kept apart`,
        );
      }
      if (this.#entries.has(id)) throw new TypeError(`${what} staged ${id} already`);
      const refuse = (detail: string) =>
        new PayloadTooLargeError(
          `${what}: ${detail}; one call's records and work orders are committed together and ` +
            `must fit one atomic write. Nothing of this was staged.`,
        );
      if (value.byteLength > TRANSACTION_LIMITS.maxValueBytes) {
        throw refuse(
          `it is ${value.byteLength} bytes as stored, at most ` +
            `${TRANSACTION_LIMITS.maxValueBytes} allowed`,
        );
      }
      const keyBytes = kvKeyBytes(key);
      const cost: Cost = {
        bytes: keyBytes + value.byteLength,
        mutations: 1,
        mutationKeyBytes: keyBytes,
      };
      const checks = this.#checksFor(this.#staged.size, this.#kinds.size);
      this.#total = this.#admit(this.#total, cost, checks, refuse, this.#kindsCost);
      this.#entries.set(id, { key, value, cost });
      return Promise.resolve();
    });
  }

  /**
   * An entry as this transaction sees it: staged in this call, or committed.
   *
   * @param key A key {@linkcode MemoryTransaction.stageEntry} takes.
   * @returns The entry's bytes, or null when there is none.
   */
  entry(key: Deno.KvKey): Promise<Uint8Array | null> {
    return this.#read(async () => {
      const staged = this.#entries.get(JSON.stringify(key));
      if (staged) return staged.value;
      if (isRecordSpaceKey(key)) return null;
      const committed = await this.#kv.get<Uint8Array>(key);
      return committed.value instanceof Uint8Array ? committed.value : null;
    });
  }

  /**
   * Applies every staged change in one atomic operation. Refuses, writing
   * nothing, with `SupersededError` when the package's generation moved on,
   * with `FencedError` when a task step's account epoch moved on, and with
   * `ConflictError` when a record a change was based on was written by
   * someone else first. The transaction is finished either way.
   *
   * @returns The versionstamp, and the keys written and removed.
   * @throws {SupersededError} when the package's generation moved on.
   * @throws {FencedError} when the account epoch the step began under moved on.
   * @throws {ConflictError} when another writer changed a record first.
   */
  commit(): Promise<CommitResult> {
    return this.#run(() => this.#commit(), "committed");
  }

  /** Drops every staged change. The transaction is finished. */
  discard(): void {
    this.#assertOpen();
    this.#state = "discarded";
    this.#staged.clear();
    this.#entries.clear();
  }

  /** Runs a read in turn, noting it was made while a kept generation was unproven. */
  #read<T>(operation: () => Promise<T>): Promise<T> {
    return this.#run(() => {
      if (this.#generationUnproven) this.#readUnproven = true;
      return operation();
    });
  }

  /** Runs a write in turn, once a kept generation is proven. */
  #write<T>(operation: () => Promise<T>): Promise<T> {
    return this.#run(async () => {
      await this.#proveGeneration();
      return await operation();
    });
  }

  /**
   * Proves a generation kept from an earlier call by reading it, once; see
   * {@linkcode MemoryTransactionOptions.generationKept}.
   *
   * @throws {SupersededError} when it moved on after the transaction read.
   */
  async #proveGeneration(): Promise<void> {
    if (this.#generationMoved !== null) throw this.#superseded(this.#generationMoved);
    if (!this.#generationUnproven) return;
    const entry = await this.#kv.get<number>(generationKey(this.#packageId!));
    const now = { value: entry.value ?? 0, versionstamp: entry.versionstamp };
    if (now.versionstamp !== this.#generation!.versionstamp) {
      const whileRunning = this.#bumpedSince();
      if (this.#readUnproven || whileRunning) {
        this.#generationMoved = now;
        this.#movedWhileRunning = whileRunning;
        throw this.#superseded(now);
      }
      // Nothing was read yet: the call starts, as far as memory goes, now.
      this.#generation = now;
    }
    this.#generationUnproven = false;
  }

  /** The refusal of a call whose generation moved on from the one it runs under. */
  #superseded(now: Generation): SupersededError {
    return new SupersededError(
      `The package ${quote(this.#packageId!)} was paused, removed or updated while the call ` +
        `ran; nothing was committed (generation ${this.#generation!.value}, now ${now.value}).`,
    );
  }

  /** Runs operations one at a time, in call order, while the transaction is open. */
  #run<T>(operation: () => Promise<T>, finish?: State): Promise<T> {
    try {
      this.#assertOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    if (finish) this.#state = finish;
    const generation = this.#generationRead;
    const result = this.#queue.then(
      generation === null ? operation : async () => {
        // Made now, answered once the generation is read: what the call reads
        // comes after the generation it runs under.
        const made = operation();
        // Marked handled at once: it may fail before the generation is read,
        // and its failure is answered below, once the generation is.
        made.catch(() => {});
        await generation;
        return await made;
      },
    );
    this.#queue = result.catch(() => {});
    return result;
  }

  #assertOpen(): void {
    if (this.#state !== "open") {
      const how = this.#state === "discarded" ? "discarded" : "committed (or refused at commit)";
      throw new SyncError(
        `This memory transaction was already ${how}; ` +
          `memory can no longer be read or written through it.`,
      );
    }
  }

  async #baseOf(key: string): Promise<Staged> {
    const { record, versionstamp } = await readStoredEntry(this.#kv, key);
    return {
      base: record,
      baseVersionstamp: versionstamp,
      next: record,
      content: null,
      chunks: [],
      cost: { bytes: 0, mutations: 0, mutationKeyBytes: 0 },
    };
  }

  async #committedContent(key: string, record: StoredRecord): Promise<string> {
    const content = await readContentOf(this.#kv, record);
    if (content === null) {
      throw new ConflictError(
        `Record ${quote(key)} was changed by another writer while the call ran.`,
      );
    }
    return content;
  }

  /** Records a key's change after checking the whole transaction stays committable. */
  #stage(key: string, staged: Staged): void {
    // A write that ends where the call began (created, then removed) needs nothing.
    if (staged.base === null && staged.next === null) {
      this.#unstage(key);
      return;
    }
    const cost = costOf(key, staged);
    const old = this.#staged.get(key)?.cost ?? { bytes: 0, mutations: 0, mutationKeyBytes: 0 };
    const without: Cost = {
      bytes: this.#total.bytes - old.bytes,
      mutations: this.#total.mutations - old.mutations,
      mutationKeyBytes: this.#total.mutationKeyBytes - old.mutationKeyBytes,
    };
    const added = !this.#staged.has(key);
    const kind = kindOf(key);
    const newKind = added && !this.#kinds.has(kind);
    const kindsCost = newKind ? addCost(this.#kindsCost, kindSumCost(kind)) : this.#kindsCost;
    const checks = this.#checksFor(
      this.#staged.size + (added ? 1 : 0),
      this.#kinds.size + (newKind ? 1 : 0),
    );
    const refuse = (what: string) =>
      new PayloadTooLargeError(
        `Record ${quote(key)}: ${what}; one call's changes are committed together and ` +
          `must fit one atomic write. Nothing of this change was staged.`,
      );
    this.#total = this.#admit(without, cost, checks, refuse, kindsCost);
    this.#staged.set(key, { ...staged, cost });
    if (added) {
      this.#kinds.set(kind, (this.#kinds.get(kind) ?? 0) + 1);
      this.#kindsCost = kindsCost;
    }
  }

  /**
   * The checks a commit of `records` records of `kinds` kinds makes: one per
   * record and the fences' while KV can take them all; past that, one per
   * kind (its count of commits) and the fences'.
   */
  #checksFor(records: number, kinds: number): number {
    const fences = this.#fenceChecks();
    return records + fences <= TRANSACTION_LIMITS.maxChecks ? records + fences : kinds + fences;
  }

  /** The commit changes more records than KV can check one by one. */
  #wide(): boolean {
    return this.#staged.size + this.#fenceChecks() > TRANSACTION_LIMITS.maxChecks;
  }

  /** The checks a commit makes besides the records': the generation's, the account epoch's. */
  #fenceChecks(): number {
    return (this.#packageId === null ? 0 : 1) + (this.#accountEpoch === null ? 0 : 1);
  }

  /**
   * The totals once `cost` is added to `base`, or the refusal naming the
   * first limit it would pass with `kinds` (the sums of the kinds' counts of
   * commits) added too.
   */
  #admit(
    base: Cost,
    cost: Cost,
    checks: number,
    refuse: (what: string) => SyncError,
    kinds: Cost,
  ): Cost {
    const staged = addCost(base, cost);
    const total = addCost(staged, kinds);
    if (total.bytes > TRANSACTION_LIMITS.maxBytes) {
      throw refuse(
        `this change would bring the call's staged changes to ${total.bytes} bytes, ` +
          `at most ${TRANSACTION_LIMITS.maxBytes} allowed`,
      );
    }
    if (checks > TRANSACTION_LIMITS.maxChecks) {
      const most = TRANSACTION_LIMITS.maxChecks - this.#fenceChecks();
      throw refuse(`one call may change records of at most ${most} kinds`);
    }
    if (total.mutations > TRANSACTION_LIMITS.maxMutations) {
      throw refuse(
        `this change would bring the call to ${total.mutations} stored entries changed, ` +
          `at most ${TRANSACTION_LIMITS.maxMutations} allowed`,
      );
    }
    if (total.mutationKeyBytes > TRANSACTION_LIMITS.maxMutationKeyBytes) {
      throw refuse(
        `this change would bring the keys the call changes to ${total.mutationKeyBytes} bytes, ` +
          `at most ${TRANSACTION_LIMITS.maxMutationKeyBytes} allowed`,
      );
    }
    return staged;
  }

  #unstage(key: string): void {
    const old = this.#staged.get(key);
    if (!old) return;
    this.#total = {
      bytes: this.#total.bytes - old.cost.bytes,
      mutations: this.#total.mutations - old.cost.mutations,
      mutationKeyBytes: this.#total.mutationKeyBytes - old.cost.mutationKeyBytes,
    };
    this.#staged.delete(key);
    const kind = kindOf(key);
    const left = (this.#kinds.get(kind) ?? 1) - 1;
    if (left > 0) this.#kinds.set(kind, left);
    else {
      this.#kinds.delete(kind);
      this.#kindsCost = subtractCost(this.#kindsCost, kindSumCost(kind));
    }
  }

  async #commit(): Promise<CommitResult> {
    if (this.#generationRead) await this.#generationRead;
    if (this.#generationMoved !== null) throw this.#superseded(this.#generationMoved);
    if (this.#staged.size === 0 && this.#entries.size === 0 && this.#packageId !== null) {
      if (this.#generationUnproven) {
        // Proving it is the same read as the check below.
        await this.#proveGeneration();
        const versionstamp = this.#generation!.versionstamp ?? "";
        return { versionstamp, written: [], removed: [], changes: [] };
      }
      // Nothing to write: reading the generation checks the same fence as a
      // commit of one check would, without a write to disk.
      const now = await this.#kv.get<number>(generationKey(this.#packageId));
      if (now.versionstamp !== this.#generation!.versionstamp) throw await this.#explainRefusal();
      return { versionstamp: now.versionstamp ?? "", written: [], removed: [], changes: [] };
    }
    // Past what KV checks one by one, each record's base is proven now and
    // each kind's count of commits checked instead: a commit that changed a
    // record of those kinds since then added to its count.
    const kindStamps = this.#wide() ? await this.#proveBases() : null;
    const atomic = this.#kv.atomic();
    if (this.#packageId !== null) {
      atomic.check({
        key: generationKey(this.#packageId),
        versionstamp: this.#generation!.versionstamp,
      });
    }
    if (this.#accountEpoch !== null) {
      // The epoch is a number, and a check compares versionstamps: the
      // versionstamp of the entry read now, if it holds the step's epoch, is
      // the one that proves it unchanged when the commit lands.
      const epoch = await this.#kv.get<number>(accountEpochKey(this.#packageId!));
      if ((epoch.value ?? 0) !== this.#accountEpoch) throw await this.#explainRefusal();
      atomic.check({ key: accountEpochKey(this.#packageId!), versionstamp: epoch.versionstamp });
    }
    const written: string[] = [];
    const removed: string[] = [];
    const changes: RecordChange[] = [];
    for (const kind of this.#kinds.keys()) {
      if (kindStamps) {
        atomic.check({ key: kindCommitsKey(kind), versionstamp: kindStamps.get(kind)! });
      }
      atomic.sum(kindCommitsKey(kind), 1n);
    }
    for (const [key, staged] of this.#staged) {
      if (!kindStamps) atomic.check({ key: recordKey(key), versionstamp: staged.baseVersionstamp });
      for (const mutation of mutationsOf(key, staged)) {
        if (mutation.type === "set") atomic.set(mutation.key, mutation.value);
        else atomic.delete(mutation.key);
      }
      (staged.next === null ? removed : written).push(key);
      changes.push(
        staged.next === null
          ? { key, revision: staged.base?.revision ?? 0, removed: true }
          : { key, revision: staged.next.revision },
      );
    }
    for (const entry of this.#entries.values()) atomic.set(entry.key, entry.value);
    const result = await atomic.commit();
    if (!result.ok) throw await this.#explainRefusal();
    this.#staged.clear();
    this.#kinds.clear();
    this.#entries.clear();
    return {
      versionstamp: result.versionstamp,
      written: written.sort(compareRecordKeys),
      removed: removed.sort(compareRecordKeys),
      changes: changes.sort((a, b) => compareRecordKeys(a.key, b.key)),
    };
  }

  /**
   * For a commit of more records than KV checks one by one: reads each staged
   * kind's count of commits, then proves every staged record still stands as
   * its change was based on.
   *
   * @returns Each kind's count's versionstamp, read before the records.
   * @throws {ConflictError} naming the records written by someone else since.
   */
  async #proveBases(): Promise<Map<string, string | null>> {
    const stamps = new Map<string, string | null>();
    const kinds = [...this.#kinds.keys()];
    for (let i = 0; i < kinds.length; i += GET_MANY) {
      const entries = await this.#kv.getMany(kinds.slice(i, i + GET_MANY).map(kindCommitsKey));
      entries.forEach((entry, j) => stamps.set(kinds[i + j], entry.versionstamp));
    }
    const keys = [...this.#staged.keys()];
    const batches: string[][] = [];
    for (let i = 0; i < keys.length; i += GET_MANY) batches.push(keys.slice(i, i + GET_MANY));
    const changed: string[] = [];
    await Promise.all(batches.map(async (batch) => {
      const entries = await this.#kv.getMany(batch.map(recordKey));
      entries.forEach((entry, j) => {
        if (entry.versionstamp !== this.#staged.get(batch[j])!.baseVersionstamp) {
          changed.push(batch[j]);
        }
      });
    }));
    if (changed.length > 0) {
      throw new ConflictError(
        `Record ${changed.sort(compareRecordKeys).map(quote).join(", ")} was written by ` +
          `someone else while the call ran; nothing was committed.`,
      );
    }
    return stamps;
  }

  /** Finds out which check failed, to say so. */
  async #explainRefusal(): Promise<SyncError> {
    if (this.#packageId !== null) {
      const key = generationKey(this.#packageId);
      const now = await this.#kv.get<number>(key);
      if (now.versionstamp !== this.#generation!.versionstamp) {
        return this.#superseded({ value: now.value ?? 0, versionstamp: now.versionstamp });
      }
    }
    if (this.#accountEpoch !== null) {
      const now = await this.#kv.get<number>(accountEpochKey(this.#packageId!));
      if ((now.value ?? 0) !== this.#accountEpoch) {
        return new FencedError(
          `The package ${quote(this.#packageId!)} read an account that is no longer its ` +
            `device's: the device's account changed while this run was going; nothing of it ` +
            `was kept (account epoch ${this.#accountEpoch}, now ${now.value ?? 0}).`,
        );
      }
    }
    const changed: string[] = [];
    for (const [key, staged] of this.#staged) {
      const { versionstamp } = await readStoredEntry(this.#kv, key);
      if (versionstamp !== staged.baseVersionstamp) changed.push(quote(key));
    }
    if (changed.length === 0 && this.#wide()) {
      const kinds = [...this.#kinds.keys()].map(quote).join(", ");
      return new ConflictError(
        `Another call changed records of ${kinds} while this call committed its ` +
          `${this.#staged.size} records; nothing was committed.`,
      );
    }
    const which = changed.length === 0 ? "A record" : `Record ${changed.join(", ")}`;
    return new ConflictError(
      `${which} was written by someone else while the call ran; nothing was committed.`,
    );
  }
}

type Mutation = { type: "set"; key: Deno.KvKey; value: Uint8Array } | {
  type: "delete";
  key: Deno.KvKey;
};

/** The sets and deletes committing one key's change takes. */
function mutationsOf(key: string, staged: Staged): Mutation[] {
  const { base, next } = staged;
  const mutations: Mutation[] = [];
  if (next === null) {
    if (base !== null) mutations.push({ type: "delete", key: recordKey(key) });
  } else {
    mutations.push({ type: "set", key: recordKey(key), value: encodeStoredRecord(next) });
    staged.chunks.forEach((chunk, i) => {
      mutations.push({ type: "set", key: contentChunkKey(key, next.contentId, i), value: chunk });
    });
  }
  // The base's chunks go when the content they hold is no longer the record's.
  if (base !== null && base.chunks > 0 && base.contentId !== next?.contentId) {
    for (let i = 0; i < base.chunks; i++) {
      mutations.push({ type: "delete", key: contentChunkKey(key, base.contentId, i) });
    }
  }
  return mutations;
}

/** Keys `getMany` reads at once (Deno KV takes 10). */
const GET_MANY = 10;

/** The kind of a record's key, `kind/name`. */
function kindOf(key: string): string {
  return key.slice(0, key.indexOf("/"));
}

/** What adding one to a kind's count of commits adds to a commit: one sum of a 64-bit number. */
function kindSumCost(kind: string): Cost {
  const keyBytes = kvKeyBytes(kindCommitsKey(kind));
  return { bytes: keyBytes + 8, mutations: 1, mutationKeyBytes: keyBytes };
}

function addCost(a: Cost, b: Cost): Cost {
  return {
    bytes: a.bytes + b.bytes,
    mutations: a.mutations + b.mutations,
    mutationKeyBytes: a.mutationKeyBytes + b.mutationKeyBytes,
  };
}

function subtractCost(a: Cost, b: Cost): Cost {
  return {
    bytes: a.bytes - b.bytes,
    mutations: a.mutations - b.mutations,
    mutationKeyBytes: a.mutationKeyBytes - b.mutationKeyBytes,
  };
}

function costOf(key: string, staged: Staged): Cost {
  const checkBytes = kvKeyBytes(recordKey(key));
  const cost: Cost = { bytes: checkBytes, mutations: 0, mutationKeyBytes: 0 };
  for (const mutation of mutationsOf(key, staged)) {
    const keyBytes = kvKeyBytes(mutation.key);
    cost.mutations++;
    cost.mutationKeyBytes += keyBytes;
    cost.bytes += keyBytes + (mutation.type === "set" ? mutation.value.byteLength : 0);
  }
  return cost;
}
