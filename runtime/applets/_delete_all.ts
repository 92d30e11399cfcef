/**
 * Deleting every entry under a prefix of the installation's KV, one checked
 * delete each. Private to the applets' folder.
 *
 * @module
 */

/**
 * Deletes every entry under a prefix of the installation's KV.
 *
 * @param kv The installation's KV.
 * @param prefix The prefix.
 */
export async function deleteAll(kv: Deno.Kv, prefix: Deno.KvKey): Promise<void> {
  for await (const entry of kv.list({ prefix })) {
    await kv.atomic().check(entry).delete(entry.key).commit();
  }
}
