/**
 * A project's memory: the Deno KV database at `<project>/.sync/memory.kv`,
 * inside the project so that it travels with it, and how records are laid out
 * in it.
 *
 * Deno KV refuses values over 64 KiB, and a record's content may be 512 KiB, so
 * a record is stored as two kinds of entry:
 * - its metadata (everything but the content) at `recordKey(key)`;
 * - its content, as UTF-8 split into chunks of at most 60 KiB, at
 *   `contentChunkKey(key, contentId, i)`;
 *
 * both built in `keys.ts`.
 *
 * `contentId` is fresh each time a record's content is written, so a set of
 * chunks never changes once written: a reader that finds every chunk the
 * metadata names has read one consistent body, and a write that leaves the
 * content alone touches no chunk at all. Lists read metadata only.
 *
 * Records are written only through `MemoryTransaction` (a handler's call) or
 * `writeRecord` in `write_record.ts` (a person's write), which is a one-write
 * transaction.
 *
 * @module
 */

import { join } from "node:path";
import {
  ConflictError,
  InvalidInputError,
  MemoryUnreadableError,
  NotFoundError,
} from "../errors.ts";
import { groupCommits } from "../internal/group_commits.ts";
import { retryWhenLocked } from "../internal/retry_when_locked.ts";
import { LOCK_RETRY, RECORD_LIMITS } from "../limits.ts";
import { describeGiven } from "../internal/describe_given.ts";
import { assertKind, compareRecordKeys, DEFAULT_LIST_LIMIT, parseRecordKey } from "./record.ts";
import type { RecordPage, RecordQuery, RecordSummary } from "../extension_api/service.ts";
import { contentChunkKey, recordKey, recordsPrefix } from "./keys.ts";
import { cursorRefusal, processRecordCursors, type RecordCursors } from "./record_cursors.ts";
import { linkTarget } from "../internal/link_target.ts";
import { openingFailure, storageFailure, writingFailure } from "../storage_failure.ts";
import type { StorageError } from "../errors.ts";

/** Largest content chunk, in bytes; leaves room under Deno KV's 64 KiB value limit. */
export const CONTENT_CHUNK_BYTES = 60 * 1024;

/** Revisions whose writer a record keeps, newest first: {@linkcode StoredRecord.writers}. */
export const RECORD_WRITERS_KEPT = 8;

/** Who wrote one revision of a record, and in which handler call. */
export interface RecordWriter {
  /** The revision written. */
  revision: number;
  /** The writer: a package id, or `person`. */
  by: string;
  /** When, as an ISO 8601 time. */
  at: string;
  /**
   * The id of the receipt of the handler call that wrote it, in the
   * installation (by the package `by`); absent for a write outside a call.
   */
  receipt?: string;
}

/** A record's metadata as stored: the summary plus where its content is. */
export interface StoredRecord extends RecordSummary {
  /** Names this version's content chunks; "" when the content is empty. */
  contentId: string;
  /** Content length in UTF-8 bytes. */
  contentBytes: number;
  /** Number of content chunks. */
  chunks: number;
  /**
   * Who wrote its newest revisions, newest first, at most
   * {@linkcode RECORD_WRITERS_KEPT}; absent on records written before
   * writers were kept. Kept in the metadata, so a write costs no entry more.
   */
  writers?: RecordWriter[];
}

/** A record's metadata as read, with the versionstamp a write must check. */
export interface StoredEntry {
  /** The record's metadata, or null when there is no such record. */
  record: StoredRecord | null;
  /**
   * The KV versionstamp of the metadata, or null when there is no record; a
   * write checks it so that a change made meanwhile fails the commit.
   */
  versionstamp: string | null;
}

/**
 * Where a project's memory lives: `<project>/.sync/memory.kv`.
 *
 * @param projectDir The project folder.
 */
export function projectMemoryPath(projectDir: string): string {
  return join(projectDir, ".sync", "memory.kv");
}

/** The database and the files SQLite keeps beside it. */
const MEMORY_SUFFIXES = ["", "-wal", "-shm", "-journal"];

/** What SQLite says of a file that is not a database it can read. */
const NOT_A_DATABASE = /file is not a database|database disk image is malformed/;

/** Options for {@linkcode openProjectMemory}. */
export interface OpenProjectMemoryOptions {
  /** Told of each write the disk refused, as the refusal thrown (a read-only handle is reopened). */
  onStorageFailure?: (refusal: StorageError) => void;
}

/**
 * Opens (creating if needed) a project's memory. The caller closes it.
 *
 * A file that is there but is not a database is refused, not replaced: the
 * project runs nothing until a person moves it aside, because a fresh memory
 * in its place would silently drop what the project held, which may still be
 * recovered from the file.
 *
 * @param projectDir The project folder; its `.sync/` is created when missing.
 * @param options Who is told when the disk refuses a write.
 * @throws {NotFoundError} when the project folder is gone: making it again
 *   would put a memory where there is no project.
 * @throws {MemoryUnreadableError} naming the file and how to move it aside, or naming a
 *   `.sync` folder or memory file that is a link.
 * @throws {StorageError} when the disk is full, the folder read-only, the memory file a
 *   folder, or the file system gone (`storageFailure`); its writes throw it too.
 */
export async function openProjectMemory(
  projectDir: string,
  options: OpenProjectMemoryOptions = {},
): Promise<Deno.Kv> {
  const path = projectMemoryPath(projectDir);
  try {
    await Deno.mkdir(join(projectDir, ".sync"));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new NotFoundError(
        `The project folder ${projectDir} is gone, so its memory cannot be opened`,
      );
    }
    if (!(error instanceof Deno.errors.AlreadyExists)) throw storageFailure(error, path) ?? error;
  }
  // A project folder may come from someone else (a cloned repository). SQLite
  // follows links, so a linked `.sync` or database file would have Sync make
  // or change a file wherever the link points: another program's database, a
  // file outside the project. Such a memory is refused, and the link left.
  for (const file of [join(projectDir, ".sync"), ...MEMORY_SUFFIXES.map((s) => path + s)]) {
    const target = await linkTarget(file);
    if (target === null) continue;
    throw new MemoryUnreadableError(
      `The memory of project ${projectDir} cannot be opened: ${file} is a link (to ${target}); ` +
        `Sync keeps a project's memory only in files of its own in the project's .sync folder, ` +
        `never where a link points. Remove the link, and the project starts a new, empty memory ` +
        `at its next call`,
    );
  }
  let kv: Deno.Kv;
  try {
    kv = await Deno.openKv(path);
  } catch (error) {
    const reason = (error as Error).message;
    if (!NOT_A_DATABASE.test(reason)) throw await openingFailure(error, path) ?? error;
    throw new MemoryUnreadableError(
      `The memory of project ${projectDir} cannot be read: ${path} is not a database ` +
        `(${reason}). Sync leaves it as it is and runs nothing in this project until it can: ` +
        `move ${path} and any ${path}-wal and ${path}-shm beside it aside (to another folder, ` +
        `or renamed), and the project starts a new, empty memory at its next call`,
    );
  }
  // A full or read-only disk, met by a commit, is told naming the file.
  // Concurrent calls' commits go together, one transaction each group (`groupCommits`).
  return groupCommits(retryWhenLocked(kv, {
    ...LOCK_RETRY,
    failure: async (error) => {
      const refusal = await writingFailure(error, path);
      if (refusal === null) return error;
      options.onStorageFailure?.(refusal);
      return refusal;
    },
  }));
}

/**
 * Deletes a project's memory: the database and the files SQLite keeps beside
 * it (`-wal`, `-shm`, `-journal`), which would otherwise hold on to what the
 * database held. What is already gone is passed over. The caller closes the
 * memory first.
 *
 * @param projectDir The project folder.
 */
export async function removeProjectMemory(projectDir: string): Promise<void> {
  const path = projectMemoryPath(projectDir);
  for (const suffix of MEMORY_SUFFIXES) {
    await Deno.remove(path + suffix).catch(() => {});
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Metadata is stored as UTF-8 JSON bytes rather than as an object: V8's
 * serializer writes strings outside Latin-1 as UTF-16, which could push 32 KiB
 * of fields past the 64 KiB value limit, and bytes let a transaction count
 * exactly what it will commit.
 */
export function encodeStoredRecord(record: StoredRecord): Uint8Array {
  return encoder.encode(JSON.stringify(record));
}

/**
 * Reads stored metadata back.
 *
 * @param value The bytes {@linkcode encodeStoredRecord} wrote.
 */
export function decodeStoredRecord(value: Uint8Array): StoredRecord {
  return JSON.parse(decoder.decode(value));
}

/**
 * The public summary of a stored record (a fresh object).
 *
 * @param record The record's metadata.
 * @param owned Whether `record` was just decoded and is the caller's alone,
 *   so its fields need no copy.
 */
export function summaryOf(record: StoredRecord, owned = false): RecordSummary {
  return {
    key: record.key,
    kind: record.kind,
    title: record.title,
    fields: owned ? record.fields : structuredClone(record.fields),
    revision: record.revision,
    updatedAt: record.updatedAt,
    updatedBy: record.updatedBy,
  };
}

/** Splits content into the chunks it is stored as. */
export function splitContent(content: string): { bytes: number; chunks: Uint8Array[] } {
  const bytes = encoder.encode(content);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += CONTENT_CHUNK_BYTES) {
    chunks.push(bytes.subarray(at, at + CONTENT_CHUNK_BYTES));
  }
  return { bytes: bytes.byteLength, chunks };
}

/** Reads a record's metadata and its versionstamp. */
export async function readStoredEntry(kv: Deno.Kv, key: string): Promise<StoredEntry> {
  const entry = await kv.get<Uint8Array>(recordKey(key));
  return {
    record: entry.value === null ? null : decodeStoredRecord(entry.value),
    versionstamp: entry.versionstamp,
  };
}

// Deno KV's getMany reads at most ten keys at once.
const GET_MANY_KEYS = 10;

/**
 * Reads the content a stored record names, or null when its chunks are gone
 * (a newer write replaced them since the metadata was read).
 */
export async function readContentOf(kv: Deno.Kv, record: StoredRecord): Promise<string | null> {
  if (record.chunks === 0) return "";
  const keys = Array.from(
    { length: record.chunks },
    (_, i) => contentChunkKey(record.key, record.contentId, i),
  );
  const whole = new Uint8Array(record.contentBytes);
  let at = 0;
  for (let from = 0; from < keys.length; from += GET_MANY_KEYS) {
    const entries = await kv.getMany<Uint8Array[]>(keys.slice(from, from + GET_MANY_KEYS));
    for (const entry of entries) {
      if (entry.value === null) return null;
      whole.set(entry.value, at);
      at += entry.value.byteLength;
    }
  }
  return decoder.decode(whole);
}

/** A committed record's summary, or null when there is none. */
export async function getRecord(kv: Deno.Kv, key: string): Promise<RecordSummary | null> {
  parseRecordKey(key);
  const { record } = await readStoredEntry(kv, key);
  return record === null ? null : summaryOf(record, true);
}

// A reader racing a stream of writers could in principle miss the chunks every
// time; give up after a few rounds rather than spin.
const CONTENT_READ_ATTEMPTS = 5;

/** A committed record's content, or null when there is no such record. */
export async function getContent(kv: Deno.Kv, key: string): Promise<string | null> {
  parseRecordKey(key);
  for (let attempt = 0; attempt < CONTENT_READ_ATTEMPTS; attempt++) {
    const { record } = await readStoredEntry(kv, key);
    if (record === null) return null;
    const content = await readContentOf(kv, record);
    if (content !== null) return content;
  }
  throw new ConflictError(
    `Record ${JSON.stringify(key)} kept changing while its content was read; try again.`,
  );
}

/** A committed record's metadata changes as staged by a transaction: the new version, or null when removed. */
export type RecordOverlay = ReadonlyMap<string, StoredRecord | null>;

const QUERY_FIELDS = new Set(["kind", "prefix", "limit", "cursor"]);

interface ResolvedQuery {
  /** Keys listed start with this; null when kind and prefix exclude each other. */
  prefix: string | null;
  limit: number;
  /** The cursor as given, opened once the listing's scope is known. */
  cursor?: unknown;
}

function resolveQuery(query: unknown): ResolvedQuery {
  if (query === undefined || query === null) query = {};
  if (typeof query !== "object" || Array.isArray(query)) {
    throw new InvalidInputError(
      `A list query must be an object such as { "kind": "<kind>" }, got ${describeGiven(query)}.`,
    );
  }
  const q = query as { [name: string]: unknown };
  for (const name of Object.keys(q)) {
    if (!QUERY_FIELDS.has(name) && q[name] !== undefined) {
      throw new InvalidInputError(
        `A list query takes kind, prefix, limit and cursor; got ${JSON.stringify(name)}.`,
      );
    }
  }
  let prefix: string | null = "";
  if (q.kind !== undefined) prefix = `${assertKind(q.kind)}/`;
  if (q.prefix !== undefined) {
    if (typeof q.prefix !== "string") {
      throw new InvalidInputError(
        `A list query's "prefix" must be a string, got ${describeGiven(q.prefix)}.`,
      );
    }
    // A prefix longer than any key could be matches nothing, and is more than a key read takes.
    const most = RECORD_LIMITS.maxKeyChars;
    const chars = [...q.prefix.slice(0, 2 * most + 2)].length;
    if (chars > most) {
      throw new InvalidInputError(
        `A list query's "prefix" has more than ${most} characters, and a record key has at ` +
          `most ${most}; give a shorter prefix.`,
      );
    }
    // Both narrow the listing: keep the narrower, or nothing when they disagree.
    if (q.prefix.startsWith(prefix)) prefix = q.prefix;
    else if (!prefix.startsWith(q.prefix)) prefix = null;
  }
  let limit = DEFAULT_LIST_LIMIT;
  if (q.limit !== undefined) {
    if (typeof q.limit !== "number" || !Number.isSafeInteger(q.limit) || q.limit < 1) {
      throw new InvalidInputError(
        `A list query's "limit" must be a whole number ≥ 1, got ${JSON.stringify(q.limit)}.`,
      );
    }
    // A larger limit is not an error: the page is capped and its cursor says more follow.
    limit = Math.min(q.limit, RECORD_LIMITS.maxListLimit);
  }
  const resolved: ResolvedQuery = { prefix, limit };
  if (q.cursor !== undefined) resolved.cursor = q.cursor;
  return resolved;
}

/** How {@linkcode listRecordPage} lists, besides the query. */
export interface RecordPageOptions {
  /** A transaction's staged changes, applied over what is committed. */
  overlay?: RecordOverlay;
  /**
   * Whether the reader may see records of a kind. Records it may not are
   * passed over before the page is counted, so a page, its size and its
   * cursor show nothing of them. Every kind when absent.
   */
  readable?: (kind: string) => boolean;
  /** Who lists: a cursor is good only for the reader it was issued to. */
  reader: string;
  /** Seals and opens cursors; the process's own when absent. */
  cursors?: RecordCursors;
}

/**
 * Lists records in key order, applying a transaction's staged changes when
 * `overlay` is given: a staged version replaces the committed one (or appears
 * where there was none) and a staged removal hides it. Records of a kind the
 * reader may not read are passed over before the page is counted.
 *
 * @throws {InvalidInputError} for a malformed query, or a cursor not issued
 *   to this reader for this kind and prefix.
 */
export async function listRecordPage(
  kv: Deno.Kv,
  query: RecordQuery | undefined,
  options: RecordPageOptions,
): Promise<RecordPage> {
  const { prefix, limit, cursor } = resolveQuery(query);
  if (prefix === null) {
    // A listing that can hold nothing issues no cursor, so none is good for it.
    if (cursor !== undefined) throw cursorRefusal(cursor);
    return { records: [] };
  }
  const cursors = options.cursors ?? processRecordCursors();
  const scope = { reader: options.reader, prefix };
  const after = cursor === undefined ? undefined : await cursors.open(cursor, scope);
  const overlay = options.overlay ?? new Map();
  const readable = options.readable ?? (() => true);
  const inPage = (key: string) =>
    key.startsWith(prefix) && (after === undefined || compareRecordKeys(key, after) > 0) &&
    readable(kindOf(key));
  const staged = [...overlay]
    .filter((pair): pair is [string, StoredRecord] => pair[1] !== null && inPage(pair[0]))
    .sort((a, b) => compareRecordKeys(a[0], b[0]));

  // One more than asked tells whether another page follows.
  const wanted = limit + 1;
  const found: RecordSummary[] = [];
  // A page also ends by its size, so that it always crosses to the isolate
  // whole: fifty records with large fields are more than one host call may
  // answer. Reaching the size says another page follows, as the one more does.
  let pageChars = 0;
  let full = false;
  const add = (summary: RecordSummary) => {
    if (found.length < limit) {
      const chars = JSON.stringify(summary).length + 1;
      if (found.length > 0 && pageChars + chars > RECORD_LIMITS.maxListPageChars) {
        full = true;
        return;
      }
      pageChars += chars;
    }
    found.push(summary);
  };
  const more = () => found.length < wanted && !full;
  let next = 0;
  const take = (key: string | null) => {
    // Staged records before `key` (all of them at the end) come first.
    while (
      next < staged.length && more() &&
      (key === null || compareRecordKeys(staged[next][0], key) < 0)
    ) {
      add(summaryOf(staged[next++][1]));
    }
  };
  let start: string | null = after !== undefined && compareRecordKeys(after, prefix) > 0
    ? after
    : prefix;
  while (start !== null && more()) {
    const from: string = start;
    start = null;
    const entries = kv.list<Uint8Array>(
      { prefix: recordsPrefix(), start: recordKey(from) },
      { batchSize: Math.min(1000, wanted + overlay.size + 1) },
    );
    for await (const entry of entries) {
      const key = entry.key[1] as string;
      if (!key.startsWith(prefix)) break;
      if (key === after || overlay.has(key)) continue;
      const kind = kindOf(key);
      if (!readable(kind)) {
        // Go on past the whole kind at once: "<kind>0" is the first key after
        // every "<kind>/…", since "0" follows "/".
        start = `${kind}0`;
        break;
      }
      take(key);
      if (!more()) break;
      add(summaryOf(decodeStoredRecord(entry.value), true));
      if (!more()) break;
    }
  }
  take(null);

  if (full) return { records: found, cursor: await cursors.issue(found.at(-1)!.key, scope) };
  if (found.length <= limit) return { records: found };
  const records = found.slice(0, limit);
  return { records, cursor: await cursors.issue(records[limit - 1].key, scope) };
}

/**
 * The kind of a stored record's key (`kind/name`).
 *
 * @param key A key as stored, which is valid.
 */
export function kindOf(key: string): string {
  return key.slice(0, key.indexOf("/"));
}

/**
 * Lists committed records in key order, without their content. `kind` lists
 * exactly that kind, `prefix` keys starting with it; `cursor` continues from a
 * previous page and is absent on the last one.
 *
 * @param kv The project's memory KV.
 * @param query Which records, how many, and from where.
 * @returns One page of summaries, and a cursor when there are more.
 * @throws {InvalidInputError} for a malformed query or a cursor no page returned.
 */
export function listRecords(kv: Deno.Kv, query: RecordQuery = {}): Promise<RecordPage> {
  return listRecordPage(kv, query, { reader: "person" });
}
