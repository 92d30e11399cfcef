/**
 * A person's view of a project's records, for the window's Records area: the
 * kinds the memory holds, a search over keys, titles and fields, and one
 * record whole with the writers of its newest revisions. A person looking at
 * their project's memory may read every kind in it; what a handler may read
 * is `MemoryAccess`'s, and none of this is offered to a handler.
 *
 * Every reading is bounded: a search reads at most
 * `RECORD_VIEW_LIMITS.maxScanned` records and then answers with a cursor to
 * go on from, so a memory of a million records answers as fast as one of a
 * thousand.
 *
 * @module
 */
import { ConflictError, InvalidInputError } from "../errors.ts";
import { RECORD_VIEW_LIMITS } from "../limits.ts";
import type { RecordSummary } from "../extension_api/service.ts";
import { recordKey, recordsPrefix } from "./keys.ts";
import { assertKind, parseRecordKey } from "./record.ts";
import { processRecordCursors, type RecordCursors } from "./record_cursors.ts";
import {
  decodeStoredRecord,
  kindOf,
  readContentOf,
  readStoredEntry,
  type RecordWriter,
  summaryOf,
} from "./store.ts";

/** One kind the memory holds, with how many records it has. */
export interface RecordKindCount {
  /** The kind, such as `issues.issue`. */
  kind: string;
  /** Its records, counted up to `RECORD_VIEW_LIMITS.maxKindCount`. */
  count: number;
  /** It has more records than `count`. */
  more: boolean;
}

/** What {@linkcode listRecordKinds} answers. */
export interface RecordKinds {
  /** The kinds, in key order. */
  kinds: RecordKindCount[];
  /** More kinds follow than `RECORD_VIEW_LIMITS.maxKinds`. */
  more: boolean;
}

/**
 * The kinds a project's memory holds, each counted up to a bound: one
 * listing per kind, which skips to the next kind once counted.
 *
 * @param kv The project's memory.
 */
export async function listRecordKinds(kv: Deno.Kv): Promise<RecordKinds> {
  const cap = RECORD_VIEW_LIMITS.maxKindCount;
  const kinds: RecordKindCount[] = [];
  let start: string | null = null;
  while (true) {
    const selector: Deno.KvListSelector = start === null
      ? { prefix: recordsPrefix() }
      : { prefix: recordsPrefix(), start: recordKey(start) };
    let kind: string | null = null;
    let count = 0;
    for await (const entry of kv.list(selector, { limit: cap + 1 })) {
      const next = kindOf(entry.key[1] as string);
      kind ??= next;
      if (next !== kind) break;
      count++;
    }
    if (kind === null) return { kinds, more: false };
    if (kinds.length === RECORD_VIEW_LIMITS.maxKinds) return { kinds, more: true };
    kinds.push({ kind, count: Math.min(count, cap), more: count > cap });
    // "<kind>0" is the first key after every "<kind>/…", since "0" follows "/".
    start = `${kind}0`;
  }
}

/** What a search asks for. */
export interface RecordSearch {
  /** Only records of this kind. */
  kind?: string;
  /** Words to find in a record's key, title or fields, ignoring case; every record when empty. */
  text?: string;
  /** Records on the page; `RECORD_VIEW_LIMITS.defaultPage` when absent. */
  limit?: number;
  /** Where the page before ended, as it answered. */
  cursor?: string;
}

/** One page of a search. */
export interface RecordSearchPage {
  /** The records found, in key order. */
  records: RecordSummary[];
  /** Where to go on from; absent when the search has read every record it could find. */
  cursor?: string;
  /** Records read for this page, found or not. */
  scanned: number;
}

/** Options of {@linkcode searchRecords}. */
export interface SearchRecordsOptions {
  /** Who searches, in which project: a cursor is good only for the same reader and search. */
  reader: string;
  /** Seals and opens cursors; the process's own when absent. */
  cursors?: RecordCursors;
  /** Records one page reads at most; `RECORD_VIEW_LIMITS.maxScanned` when absent. */
  maxScanned?: number;
}

/**
 * Finds records whose key, title or fields hold the search's text, ignoring
 * case, in key order, reading at most `RECORD_VIEW_LIMITS.maxScanned`
 * records for one page. A page that stops there before it is full answers
 * what it found and a cursor, so a search over many records goes on a page
 * at a time.
 *
 * @param kv The project's memory.
 * @param search The kind, the text, the page's size and where it starts.
 * @param options Who searches, and the cursors' seal.
 * @throws {InvalidInputError} for a malformed kind, a text too long, a bad
 *   limit, or a cursor not issued for this reader and search.
 */
export async function searchRecords(
  kv: Deno.Kv,
  search: RecordSearch,
  options: SearchRecordsOptions,
): Promise<RecordSearchPage> {
  const prefix = search.kind === undefined ? "" : `${assertKind(search.kind)}/`;
  const text = (search.text ?? "").trim();
  if (text.length > RECORD_VIEW_LIMITS.maxSearchChars) {
    throw new InvalidInputError(
      `A search is at most ${RECORD_VIEW_LIMITS.maxSearchChars} characters; this one has ` +
        `${text.length}. Search for fewer words.`,
    );
  }
  const limit = search.limit ?? RECORD_VIEW_LIMITS.defaultPage;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > RECORD_VIEW_LIMITS.maxPage) {
    throw new InvalidInputError(
      `A search's page holds 1 to ${RECORD_VIEW_LIMITS.maxPage} records, not ${limit}.`,
    );
  }
  const cursors = options.cursors ?? processRecordCursors();
  const scope = { reader: JSON.stringify([options.reader, text.toLowerCase()]), prefix };
  const after = search.cursor === undefined
    ? undefined
    : await cursors.open(search.cursor, scope).catch(() => {
      throw new InvalidInputError(
        `This search cannot go on from the cursor given: it was not issued for this kind and ` +
          `these words, or Sync restarted since. Search again from the first page.`,
      );
    });
  const needle = text.toLowerCase();
  const maxScanned = options.maxScanned ?? RECORD_VIEW_LIMITS.maxScanned;
  const records: RecordSummary[] = [];
  let scanned = 0;
  let last: string | undefined;
  const entries = kv.list<Uint8Array>(
    { prefix: recordsPrefix(), start: recordKey(after ?? prefix) },
    { batchSize: 200 },
  );
  for await (const entry of entries) {
    const key = entry.key[1] as string;
    if (!key.startsWith(prefix)) return { records, scanned };
    if (key === after) continue;
    if (scanned === maxScanned) {
      return { records, scanned, cursor: await cursors.issue(last!, scope) };
    }
    const stored = decodeStoredRecord(entry.value);
    if (records.length === limit && matches(stored, needle)) {
      return { records, scanned, cursor: await cursors.issue(last!, scope) };
    }
    scanned++;
    last = key;
    if (matches(stored, needle)) records.push(summaryOf(stored, true));
  }
  return { records, scanned };
}

function matches(record: RecordSummary, needle: string): boolean {
  if (needle === "") return true;
  return record.key.toLowerCase().includes(needle) ||
    record.title.toLowerCase().includes(needle) ||
    JSON.stringify(record.fields).toLowerCase().includes(needle);
}

/** A record whole, as the window shows it. */
export interface RecordView {
  /** Its summary: key, kind, title, fields, revision, when and by whom. */
  record: RecordSummary;
  /** Its text body; `""` when it has none. */
  content: string;
  /**
   * Who wrote its newest revisions, newest first; for a record written
   * before writers were kept, its last writer alone, with no receipt.
   */
  writers: RecordWriter[];
}

// A reader racing a stream of writers could miss the chunks every time.
const READ_ATTEMPTS = 5;

/**
 * One record whole: its summary, its content and its writers.
 *
 * @param kv The project's memory.
 * @param key The record's key, `kind/name`.
 * @returns The record, or null when there is none.
 * @throws {InvalidInputError} when `key` is not a valid record key.
 * @throws {ConflictError} when it kept changing while it was read.
 */
export async function readRecordView(kv: Deno.Kv, key: string): Promise<RecordView | null> {
  parseRecordKey(key);
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const { record } = await readStoredEntry(kv, key);
    if (record === null) return null;
    const content = await readContentOf(kv, record);
    if (content === null) continue;
    const writers = record.writers ??
      [{ revision: record.revision, by: record.updatedBy, at: record.updatedAt }];
    return { record: summaryOf(record, true), content, writers };
  }
  throw new ConflictError(
    `Record ${JSON.stringify(key)} kept changing while it was read; try again.`,
  );
}
