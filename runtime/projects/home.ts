/**
 * Where the installation lives: `$SYNC_HOME`, or a per-user data folder.
 *
 * @module
 */
import { join } from "node:path";
import { InvalidInputError } from "../errors.ts";
import { retryWhenLocked } from "../internal/retry_when_locked.ts";
import { LOCK_RETRY } from "../limits.ts";

/**
 * Returns the installation folder: `SYNC_HOME` if set, else
 * `$XDG_DATA_HOME/sync`, else `~/.local/share/sync`.
 *
 * @param env Reads variables; tests pass their own.
 * @throws {InvalidInputError} when none of `SYNC_HOME`, `XDG_DATA_HOME`, `HOME` is set.
 */
export function syncHome(env: (name: string) => string | undefined = Deno.env.get): string {
  const home = env("SYNC_HOME");
  if (home) return home;
  const data = env("XDG_DATA_HOME");
  if (data) return join(data, "sync");
  const user = env("HOME");
  if (user) return join(user, ".local", "share", "sync");
  throw new InvalidInputError(
    "Cannot find a place for the installation: set SYNC_HOME to a folder Sync may use",
  );
}

/**
 * Opens the installation's KV (`<home>/sync.kv`), creating the folder.
 * Only the installation's owner opens it (see `installation_owner.ts`), once,
 * and passes it in; the caller closes it. A write that finds the file locked
 * by another program is retried (`retryWhenLocked`).
 *
 * @param home The installation folder, as {@linkcode syncHome} finds it.
 */
export async function openInstallation(home: string): Promise<Deno.Kv> {
  await Deno.mkdir(home, { recursive: true });
  return retryWhenLocked(await Deno.openKv(join(home, "sync.kv")), LOCK_RETRY);
}
