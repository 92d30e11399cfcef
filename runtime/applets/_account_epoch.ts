/**
 * The account epoch: a counter per (project, package) in the project's
 * memory KV, bumped by disconnect, reset and every change of account; a
 * task step's commit checks it. A local stand-in, in the shape of
 * `readAccountEpoch` / `bumpAccountEpoch` (`runtime/memory/account_epoch.ts`),
 * until those land. Private to the applets' folder.
 *
 * @module
 */
import { accountEpochKey } from "./keys.ts";

/**
 * A package's account epoch in the project whose memory `kv` is; 0 when never bumped.
 *
 * @param kv The project's memory KV.
 * @param pkg The package id.
 */
export async function readAccountEpoch(kv: Deno.Kv, pkg: string): Promise<number> {
  return (await kv.get<number>(accountEpochKey(pkg))).value ?? 0;
}

/**
 * Moves a package's account epoch on by one and answers the new value.
 *
 * @param kv The project's memory KV.
 * @param pkg The package id.
 */
export async function bumpAccountEpoch(kv: Deno.Kv, pkg: string): Promise<number> {
  const key = accountEpochKey(pkg);
  // Two bumps may race (a disconnect and a reset); each must count.
  while (true) {
    const entry = await kv.get<number>(key);
    const next = (entry.value ?? 0) + 1;
    if ((await kv.atomic().check(entry).set(key, next).commit()).ok) return next;
  }
}
