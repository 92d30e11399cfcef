/**
 * Where the installation lives: `$SYNC_HOME`, or a per-user data folder.
 *
 * @module
 */
import { join } from "../internal/posix_path.ts";
import { InvalidInputError, UnsafeFileError } from "../errors.ts";
import { groupCommits } from "../internal/group_commits.ts";
import { retryWhenLocked } from "../internal/retry_when_locked.ts";
import { openingFailure, writingFailure } from "../storage_failure.ts";
import { LOCK_RETRY } from "../limits.ts";
import { assertThisUsers } from "./this_user.ts";

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
 * Makes the installation folder, or finds it, and keeps it to this user: its
 * KV holds agents' secret variables, transcripts and the cursor secret, and
 * SQLite makes its files as the umask says (often readable by all), so the
 * folder itself is closed to the group and others (mode 700). A folder of
 * another user is refused as it is, never changed: what it holds is theirs.
 *
 * @param home The installation folder.
 * @throws {UnsafeFileError} when it belongs to another user, or is open to others and cannot be closed.
 */
export async function privateInstallationFolder(home: string): Promise<void> {
  await Deno.mkdir(home, { recursive: true, mode: 0o700 });
  const info = await Deno.stat(home);
  await assertThisUsers(home, info, "set SYNC_HOME to a folder of your own");
  const { mode } = info;
  // Where the system has no modes there is nothing to close.
  if (mode === null || (mode & 0o077) === 0) return;
  try {
    await Deno.chmod(home, 0o700);
  } catch (error) {
    throw new UnsafeFileError(
      `The installation folder ${home} can be read by other users (mode ${
        (mode & 0o777).toString(8)
      }) and cannot be closed to them: ${(error as Error).message}. Use a folder of your own ` +
        `(SYNC_HOME), or run chmod 700 ${home}`,
    );
  }
}

/**
 * Opens the installation's KV (`<home>/sync.kv`), creating the folder (see
 * {@linkcode privateInstallationFolder}).
 * Only the installation's owner opens it (see `installation_owner.ts`), once,
 * and passes it in; the caller closes it. A write that finds the file locked
 * by another program is retried (`retryWhenLocked`); a full or read-only
 * disk is a `StorageError` naming the file, at opening and at every write.
 * Atomic writes made while another is being committed (concurrent calls'
 * receipts) are committed together, one transaction and one `fsync` for all
 * (`groupCommits`), each with the outcome it would have had alone.
 *
 * @param home The installation folder, as {@linkcode syncHome} finds it.
 * @throws {StorageError} when the disk under it is full, read-only or gone.
 */
export async function openInstallation(home: string): Promise<Deno.Kv> {
  const path = join(home, "sync.kv");
  let kv: Deno.Kv;
  try {
    await privateInstallationFolder(home);
    kv = await Deno.openKv(path);
  } catch (error) {
    throw await openingFailure(error, path) ?? error;
  }
  return groupCommits(retryWhenLocked(kv, {
    ...LOCK_RETRY,
    failure: async (error) => await writingFailure(error, path) ?? error,
  }));
}
