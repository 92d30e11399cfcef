/**
 * The installation's secret that seals the cursors of handlers' record
 * listings: made once, by whichever process lists first, and kept in the
 * installation's KV, so a cursor a handler keeps stays good in later calls and
 * in every process of the installation.
 *
 * @module
 */
import { ConflictError } from "../errors.ts";
import { newCursorSecret } from "../memory/mod.ts";
import { recordCursorSecretKey } from "./keys.ts";

// Two processes that make it at once: one wins and the other reads its secret.
const ATTEMPTS = 5;

/**
 * The installation's cursor secret, made the first time it is asked for.
 *
 * @param kv The installation's KV.
 * @returns The secret's bytes.
 * @throws {ConflictError} when other processes kept writing it while it was read.
 */
export async function recordCursorSecret(kv: Deno.Kv): Promise<Uint8Array> {
  const key = recordCursorSecretKey();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const entry = await kv.get<Uint8Array>(key);
    if (entry.value instanceof Uint8Array) return entry.value;
    const secret = newCursorSecret();
    const made = await kv.atomic().check({ key, versionstamp: null }).set(key, secret).commit();
    if (made.ok) return secret;
  }
  throw new ConflictError(
    "The installation's record cursor secret kept changing while it was read; try again.",
  );
}
