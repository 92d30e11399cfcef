/**
 * Receipts: what every attempt leaves in the installation, whatever its occasion.
 *
 * @module
 */
import type { Receipt } from "../types.ts";
import {
  receiptCountKey,
  receiptIndexKey,
  receiptIndexPrefix,
  receiptKey,
  receiptsPrefix,
} from "./keys.ts";

/** Receipts kept per (project, package); older ones are dropped as new ones arrive. */
export const RECEIPTS_KEPT = 500;

/**
 * Writes a receipt. Once a package has more than {@linkcode RECEIPTS_KEPT}
 * in a project (plus slack, so trimming is occasional) its oldest receipts are
 * dropped.
 *
 * @param kv The installation's KV.
 * @param receipt What the attempt left; one whose `id` is already written is not written again.
 */
export async function writeReceipt(kv: Deno.Kv, receipt: Receipt): Promise<void> {
  const key = receiptKey(receipt.project, receipt.packageId, receipt.id);
  const countKey = receiptCountKey(receipt.project, receipt.packageId);
  await kv.atomic()
    .check({ key, versionstamp: null })
    .set(key, receipt)
    .set(receiptIndexKey(receipt.project, receipt.id), receipt.packageId)
    .sum(countKey, 1n)
    .commit();
  const count = Number((await kv.get<Deno.KvU64>(countKey)).value?.value ?? 0n);
  if (count <= RECEIPTS_KEPT + 50) return;
  const oldest = kv.list<Receipt>(
    { prefix: receiptsPrefix(receipt.project, receipt.packageId) },
    { limit: count - RECEIPTS_KEPT },
  );
  let dropped = 0;
  for await (const entry of oldest) {
    await kv.atomic()
      .delete(entry.key)
      .delete(receiptIndexKey(receipt.project, entry.value.id))
      .commit();
    dropped++;
  }
  await kv.set(countKey, new Deno.KvU64(BigInt(Math.max(0, count - dropped))));
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
 */
export async function listReceipts(
  kv: Deno.Kv,
  project: string,
  options: ListReceiptsOptions = {},
): Promise<Receipt[]> {
  const limit = options.limit ?? 50;
  const out: Receipt[] = [];
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
