/**
 * A project's newest receipts that match, read from its time-ordered index
 * within a bound: what the window asks for when it opens, such as the
 * failures of the calls nobody watched while no window was open.
 *
 * @module
 */
import type { Receipt } from "../types.ts";
import { receiptIndexKey, receiptIndexPrefix, receiptKey, receiptsPrefix } from "./keys.ts";

/** Options for {@linkcode matchingReceipts}. */
export interface MatchingReceiptsOptions {
  /** Only this package's receipts; absent, every package's. */
  packageId?: string;
  /** Which receipts are wanted. */
  match: (receipt: Receipt) => boolean;
  /** Only receipts whose id comes after this one, so newer than it; absent, all those kept. */
  after?: string;
  /** At most this many are answered, newest first. */
  limit: number;
  /** At most this many of the index's newest entries are read, matching or not. */
  scan: number;
}

/** What {@linkcode matchingReceipts} found. */
export interface MatchingReceipts {
  /** The newest that match, newest first, at most `limit`. */
  receipts: Receipt[];
  /** How many more matched among those read, past `limit`. */
  more: number;
  /** True when reading stopped at `scan` with more of the index left unread. */
  partial: boolean;
}

/** Deno KV reads at most ten keys in one `getMany`. */
const GET_MANY = 10;

/**
 * Reads a project's newest receipts, newest first, and keeps those that
 * match, reading at most `scan` of them: a project with many calls is read
 * in bounded time, and says so (`partial`).
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param options Which, newer than what, how many answered and how many read.
 */
export async function matchingReceipts(
  kv: Deno.Kv,
  project: string,
  options: MatchingReceiptsOptions,
): Promise<MatchingReceipts> {
  const found: MatchingReceipts = { receipts: [], more: 0, partial: false };
  const keep = (receipt: Receipt | null) => {
    if (!receipt || !options.match(receipt)) return;
    if (found.receipts.length < options.limit) found.receipts.push(receipt);
    else found.more++;
  };
  const { packageId, after } = options;
  if (packageId !== undefined) {
    const prefix = receiptsPrefix(project, packageId);
    const start = after === undefined ? undefined : [...prefix, after];
    const newer = await newestEntries<Receipt>(kv, prefix, after, start, options.scan);
    found.partial = newer.partial;
    for (const entry of newer.entries) keep(entry.value);
    return found;
  }
  const prefix = receiptIndexPrefix(project);
  const start = after === undefined ? undefined : receiptIndexKey(project, after);
  const newer = await newestEntries<string>(kv, prefix, after, start, options.scan);
  found.partial = newer.partial;
  for (let at = 0; at < newer.entries.length; at += GET_MANY) {
    const batch = newer.entries.slice(at, at + GET_MANY);
    const entries = await kv.getMany<Receipt[]>(
      batch.map((entry) => receiptKey(project, entry.value, entry.key.at(-1) as string)),
    );
    for (const entry of entries) keep(entry.value);
  }
  return found;
}

/** The newest entries under a prefix whose last key part is past `after`, at most `scan`. */
async function newestEntries<T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  after: string | undefined,
  start: Deno.KvKey | undefined,
  scan: number,
): Promise<{ entries: Deno.KvEntry<T>[]; partial: boolean }> {
  const selector: Deno.KvListSelector = start === undefined ? { prefix } : { prefix, start };
  const listed = await Array.fromAsync(kv.list<T>(selector, { reverse: true, limit: scan + 1 }));
  // `start` is inclusive: the receipt named `after` was seen already.
  const newer = listed.filter((entry) => entry.key.at(-1) !== after);
  return { entries: newer.slice(0, scan), partial: newer.length > scan };
}
