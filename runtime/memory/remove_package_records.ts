/**
 * Removing every record of a package's own kinds from a project's memory,
 * with their content: what resetting a device does to what it read. The
 * caller fences running writers first (the account epoch), so nothing of a
 * run that began before lands after.
 *
 * @module
 */
import { kindCommitsKey, packageRecordsRange } from "./keys.ts";

/** Deletions in one atomic commit (Deno KV allows 1,000 mutations). */
const BATCH = 500;

/**
 * Removes the records of every kind the package owns (`<id>.<type>`) and
 * their content, in atomic batches.
 *
 * @param kv The project's memory KV.
 * @param packageId The package id.
 * @returns How many records were removed.
 */
export async function removePackageRecords(kv: Deno.Kv, packageId: string): Promise<number> {
  let records = 0;
  for (const what of ["record", "content"] as const) {
    let batch: Deno.KvKey[] = [];
    const flush = async () => {
      const atomic = kv.atomic();
      for (const key of batch) atomic.delete(key);
      // Each kind changed counts the commit, as a call's commit does: a call
      // committing more records than KV checks one by one checks the counts.
      if (what === "record") {
        const kinds = new Set(batch.map((key) => String(key[1]).split("/")[0]));
        for (const kind of kinds) atomic.sum(kindCommitsKey(kind), 1n);
      }
      await atomic.commit();
      batch = [];
    };
    for await (const entry of kv.list(packageRecordsRange(packageId, what))) {
      if (what === "record") records++;
      batch.push(entry.key);
      if (batch.length >= BATCH) await flush();
    }
    if (batch.length > 0) await flush();
  }
  return records;
}
