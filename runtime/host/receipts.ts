/**
 * Receipts: what every attempt leaves in the installation, whatever its
 * occasion and whatever fails. Each is one value of Deno KV, so what it keeps
 * of text a handler or a person chose is cut to `RECEIPT_LIMITS`, visibly.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";
import { cutText } from "../internal/cut_text.ts";
import { isPackageId, notAPackageId } from "../packages/mod.ts";
import { RECEIPT_LIMITS } from "../limits.ts";
import type { RecordChange } from "../memory/mod.ts";
import type { Receipt, ReceiptRecord } from "../types.ts";
import { addHandlerRun } from "./handler_runs.ts";
import {
  receiptConsoleKey,
  receiptCountKey,
  receiptIndexKey,
  receiptIndexPrefix,
  receiptKey,
  receiptsPrefix,
} from "./keys.ts";

/** Receipts kept per (project, package); older ones are dropped as new ones arrive. */
export const RECEIPTS_KEPT = 500;

/**
 * A receipt as it is stored: the error's name and message and the handler's
 * name cut to `RECEIPT_LIMITS`, each with a mark saying how much was left out.
 *
 * @param receipt What the attempt left.
 * @returns A copy, or the receipt itself when nothing needed cutting.
 */
export function boundReceipt(receipt: Receipt): Receipt {
  const handler = cutText(receipt.handler, RECEIPT_LIMITS.maxHandlerChars);
  const error = receipt.error && {
    name: cutText(receipt.error.name, RECEIPT_LIMITS.maxErrorNameChars),
    message: cutText(receipt.error.message, RECEIPT_LIMITS.maxErrorMessageChars),
  };
  const records = receipt.records;
  const recordsCut = records !== undefined && records.length > RECEIPT_LIMITS.maxRecords;
  if (
    handler === receipt.handler && error?.name === receipt.error?.name &&
    error?.message === receipt.error?.message && !recordsCut
  ) return receipt;
  const bounded: Receipt = { ...receipt, handler, ...(error ? { error } : {}) };
  if (recordsCut) {
    bounded.records = records.slice(0, RECEIPT_LIMITS.maxRecords);
    bounded.recordsLeftOut = (receipt.recordsLeftOut ?? 0) + records.length -
      RECEIPT_LIMITS.maxRecords;
  }
  return bounded;
}

/**
 * What a receipt keeps of the records its call committed: the first
 * `RECEIPT_LIMITS.maxRecords` in key order, and how many more there were.
 *
 * @param changes The records the call's commit wrote or removed, in key order.
 * @returns The receipt's `records` and `recordsLeftOut`; empty when nothing was written.
 */
export function receiptRecords(
  changes: readonly RecordChange[],
): Pick<Receipt, "records" | "recordsLeftOut"> {
  if (changes.length === 0) return {};
  const records = changes.slice(0, RECEIPT_LIMITS.maxRecords).map((change): ReceiptRecord => {
    const slash = change.key.indexOf("/");
    return {
      kind: change.key.slice(0, slash),
      name: change.key.slice(slash + 1),
      revision: change.revision,
      ...(change.removed ? { removed: true } : {}),
    };
  });
  const leftOut = changes.length - records.length;
  return leftOut > 0 ? { records, recordsLeftOut: leftOut } : { records };
}

/** Which receipt to find: the package whose handler was called, and the receipt's id. */
export interface ReceiptRef {
  /** The package. */
  packageId: string;
  /** The receipt's id. */
  id: string;
}

/**
 * Finds receipts by package and id, in one read of at most ten; a receipt no
 * longer kept (dropped past {@linkcode RECEIPTS_KEPT}) is absent from the answer.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param refs The receipts wanted, at most ten.
 * @returns The receipts found, by id.
 */
export async function findReceipts(
  kv: Deno.Kv,
  project: string,
  refs: readonly ReceiptRef[],
): Promise<Map<string, Receipt>> {
  const wanted = refs.filter((ref) => isPackageId(ref.packageId)).slice(0, 10);
  const found = new Map<string, Receipt>();
  if (wanted.length === 0) return found;
  const entries = await kv.getMany<Receipt[]>(
    wanted.map((ref) => receiptKey(project, ref.packageId, ref.id)),
  );
  for (const entry of entries) if (entry.value) found.set(entry.value.id, entry.value);
  return found;
}

/**
 * Adds a receipt's writes to an atomic operation: the receipt (only if none
 * with its id is written yet), its place in the project's index, its count,
 * and the change it makes to its handler's run of failures
 * ({@linkcode addHandlerRun}, which reads that row for a failure and checks
 * it). For a receipt that must be written together with something else, such
 * as letting go of the claim of the call it tells of.
 *
 * @param kv The installation's KV, to read the handler's run.
 * @param op The atomic operation to add to.
 * @param receipt What the attempt left; it is bounded here.
 */
export async function addReceipt(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  receipt: Receipt,
): Promise<void> {
  const stored = boundReceipt(receipt);
  const key = receiptKey(stored.project, stored.packageId, stored.id);
  op
    .check({ key, versionstamp: null })
    .set(key, stored)
    .set(receiptIndexKey(stored.project, stored.id), stored.packageId)
    .sum(receiptCountKey(stored.project, stored.packageId), 1n);
  await addHandlerRun(kv, op, stored);
}

/**
 * Tries to write a receipt, and the change to its handler's run, this many
 * times: a try fails when the run changed between its read and the write.
 */
const WRITE_TRIES = 3;

/**
 * Writes a receipt. One whose id is already written is not written again,
 * except over an `interrupted` one: that is what another process concluded
 * when the call's claim seemed abandoned, and the call's own outcome, once it
 * arrives, says more. Once a package has more than
 * {@linkcode RECEIPTS_KEPT} in a project (plus slack, so trimming is
 * occasional) its oldest receipts are dropped, many in one write.
 *
 * @param kv The installation's KV.
 * @param receipt What the attempt left; it is bounded first ({@linkcode boundReceipt}).
 */
export async function writeReceipt(kv: Deno.Kv, receipt: Receipt): Promise<void> {
  const stored = boundReceipt(receipt);
  const key = receiptKey(stored.project, stored.packageId, stored.id);
  for (let tries = 0; tries < WRITE_TRIES; tries++) {
    const first = kv.atomic();
    await addReceipt(kv, first, stored);
    if ((await first.commit()).ok) break;
    const existing = await kv.get<Receipt>(key);
    // Not written yet: what failed the write was the handler's run, changed meanwhile.
    if (existing.versionstamp === null) continue;
    if (existing.value?.outcome !== "interrupted" || stored.outcome === "interrupted") break;
    const op = kv.atomic().check(existing).set(key, stored);
    await addHandlerRun(kv, op, stored);
    if ((await op.commit()).ok) break;
  }
  await trimReceipts(kv, stored.project, stored.packageId);
}

/**
 * Each package's count of receipts in a project as this process knows it,
 * per installation KV: read at the first receipt written with a claim's
 * release, then added to by each one after, and read again only once it
 * passes the bound. One process owns an installation at a time and writes
 * its receipts, so the count known is the count stored; receipts another
 * process wrote meanwhile are found at that next read, which trims them too.
 */
const knownCounts = new WeakMap<Deno.Kv, Map<string, number>>();

/** Packages whose count one installation keeps known at most; past it they are read again. */
const KNOWN_COUNTS = 4_096;

/**
 * Drops a package's oldest receipts past {@linkcode RECEIPTS_KEPT} now and
 * then, for receipts written in another atomic write (a claim's release): the
 * count is read at the first such receipt of a package in a project, and
 * again only once the receipts written since would bring it past the bound,
 * never at every call.
 *
 * @param kv The installation's KV.
 * @param receipt The receipt just written.
 */
export async function trimReceiptsNowAndThen(kv: Deno.Kv, receipt: Receipt): Promise<void> {
  const counts = knownCountsOf(kv);
  const known = counts.get(countName(receipt.project, receipt.packageId));
  if (known !== undefined && known < RECEIPTS_KEPT + TRIM_SLACK) {
    counts.set(countName(receipt.project, receipt.packageId), known + 1);
    return;
  }
  await trimReceipts(kv, receipt.project, receipt.packageId);
}

function countName(project: string, packageId: string): string {
  return `${project}\0${packageId}`;
}

function knownCountsOf(kv: Deno.Kv): Map<string, number> {
  let counts = knownCounts.get(kv);
  if (!counts) knownCounts.set(kv, counts = new Map());
  return counts;
}

/** Receipts a package may have past {@linkcode RECEIPTS_KEPT} before its oldest are dropped. */
const TRIM_SLACK = 50;

/**
 * Receipts dropped in one atomic write: each is a check and three deletes, and
 * Deno KV allows 100 checks in a write. Dropping one per write made a busy
 * package's trims cost as many writes as the calls they followed.
 */
const TRIM_BATCH = 90;

/** 2⁶⁴: a `KvU64` sum wraps around it, so adding 2⁶⁴ − n takes n away. */
const U64_WRAP = 1n << 64n;

/**
 * Drops a package's oldest receipts in a project once it has more than
 * {@linkcode RECEIPTS_KEPT} (plus slack, so trimming is occasional), in
 * writes of up to {@linkcode TRIM_BATCH} receipts, with the console lines
 * kept with them.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param packageId The package.
 */
async function trimReceipts(kv: Deno.Kv, project: string, packageId: string): Promise<void> {
  const countKey = receiptCountKey(project, packageId);
  const counts = knownCountsOf(kv);
  const name = countName(project, packageId);
  // Not known until the read and the trim settle it.
  counts.delete(name);
  let count = Number((await kv.get<Deno.KvU64>(countKey)).value?.value ?? 0n);
  if (count > RECEIPTS_KEPT + TRIM_SLACK) {
    const oldest = await Array.fromAsync(
      kv.list<Receipt>({ prefix: receiptsPrefix(project, packageId) }, {
        limit: count - RECEIPTS_KEPT,
      }),
    );
    for (let at = 0; at < oldest.length; at += TRIM_BATCH) {
      const batch = oldest.slice(at, at + TRIM_BATCH);
      const op = kv.atomic();
      for (const entry of batch) {
        op.check(entry).delete(entry.key).delete(receiptIndexKey(project, entry.value.id))
          .delete(receiptConsoleKey(project, packageId, entry.value.id));
      }
      // Taken off the count in the same write, by a sum rather than a set, so
      // that the receipts other calls count meanwhile are not undone. A batch
      // whose receipt changed meanwhile (an interrupted one given its outcome)
      // writes nothing: the next trim takes it.
      const written = await op.sum(countKey, U64_WRAP - BigInt(batch.length)).commit();
      if (written.ok) count -= batch.length;
    }
  }
  // What other calls of this process counted while it read is not known: it is read again.
  if (counts.has(name)) counts.delete(name);
  else {
    if (counts.size >= KNOWN_COUNTS) counts.clear();
    counts.set(name, count);
  }
}

/** Options for {@linkcode listReceipts}. */
export interface ListReceiptsOptions {
  /** Only this package's receipts. */
  packageId?: string;
  /** At most this many, newest first (default 50). */
  limit?: number;
}

/**
 * Lists a project's receipts, newest first.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param options One package only, and how many.
 * @throws {InvalidInputError} when `packageId` is not a package id.
 */
export async function listReceipts(
  kv: Deno.Kv,
  project: string,
  options: ListReceiptsOptions = {},
): Promise<Receipt[]> {
  const limit = options.limit ?? 50;
  const out: Receipt[] = [];
  if (options.packageId !== undefined && !isPackageId(options.packageId)) {
    throw new InvalidInputError(notAPackageId(options.packageId));
  }
  if (options.packageId) {
    const iter = kv.list<Receipt>({ prefix: receiptsPrefix(project, options.packageId) }, {
      reverse: true,
      limit,
    });
    for await (const entry of iter) out.push(entry.value);
    return out;
  }
  const index = kv.list<string>({ prefix: receiptIndexPrefix(project) }, { reverse: true, limit });
  for await (const entry of index) {
    const id = entry.key[2] as string;
    const receipt = await kv.get<Receipt>(receiptKey(project, entry.value, id));
    if (receipt.value) out.push(receipt.value);
  }
  return out;
}

/** Most receipts {@linkcode latestReceipt} reads before it gives up: all that are kept. */
const LATEST_RECEIPT_SCAN = RECEIPTS_KEPT + 50;

/**
 * A package's newest receipt in a project that matches, reading newest first
 * and stopping at the first match (such as its last lifecycle call).
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param packageId The package.
 * @param match Which receipt is wanted.
 * @returns The receipt, or null when none of those kept matches.
 */
export async function latestReceipt(
  kv: Deno.Kv,
  project: string,
  packageId: string,
  match: (receipt: Receipt) => boolean,
): Promise<Receipt | null> {
  const iter = kv.list<Receipt>({ prefix: receiptsPrefix(project, packageId) }, {
    reverse: true,
    limit: LATEST_RECEIPT_SCAN,
  });
  for await (const entry of iter) {
    if (match(entry.value)) return entry.value;
  }
  return null;
}

/**
 * A package's receipts in a project, newest first, as many as are kept: the
 * caller stops reading once it has what it needs.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param packageId The package.
 */
export async function* newestReceipts(
  kv: Deno.Kv,
  project: string,
  packageId: string,
): AsyncGenerator<Receipt> {
  const iter = kv.list<Receipt>({ prefix: receiptsPrefix(project, packageId) }, {
    reverse: true,
    limit: LATEST_RECEIPT_SCAN,
  });
  for await (const entry of iter) yield entry.value;
}
