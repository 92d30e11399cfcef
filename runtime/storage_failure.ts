/**
 * What the system or SQLite said when a file Sync keeps could not be opened
 * or written, told as a {@linkcode StorageError} that names the file and
 * what to do: a full disk, a read-only folder, a folder where the file
 * belongs, a file system that cannot be reached. Anything else is left as it
 * is: it is not the disk's doing.
 *
 * Deno KV says these in SQLite's words ("database or disk is full", "unable
 * to open database file"); the file system's own calls in the system's, with
 * a code (`ENOSPC`, `EROFS`). Both are read here, in one place, for every
 * database Sync opens.
 *
 * @module
 */
import { StorageError, type StorageProblem, SyncError } from "./errors.ts";

/** What each problem's message says, after the file's path. */
const TELLS: ReadonlyMap<StorageProblem, (path: string, reason: string) => string> = new Map([
  [
    "full",
    (path) =>
      `The disk holding ${path} is full: nothing of this call was written. Free some space on ` +
      `that disk, then call again`,
  ],
  [
    "read-only",
    (path, reason) =>
      `${path} cannot be written: its folder is read-only for Sync (${reason}). Nothing of this ` +
      `call was written; make the folder writable for this user (or mount its disk read-write), ` +
      `then call again`,
  ],
  [
    "not-a-file",
    (path) =>
      `${path} is a folder, where Sync keeps a database file: nothing of this call was written. ` +
      `Move that folder aside (or remove it), then call again`,
  ],
  [
    "unreachable",
    (path, reason) =>
      `The file system holding ${path} cannot be reached (${reason}): nothing of this call was ` +
      `written. Check that its disk or share is mounted and working, then call again`,
  ],
]);

const FULL_CODES = new Set(["ENOSPC", "EDQUOT"]);
const READ_ONLY_CODES = new Set(["EROFS", "EACCES", "EPERM"]);
const GONE_CODES = new Set(["ESTALE", "EIO", "ENOTCONN", "ENODEV", "ENXIO"]);
const FULL = /database or disk is full|SQLITE_FULL|No space left on device|quota exceeded/i;
// Deno KV opens a file it may not write read-only, and says so only at the
// first commit, in words of its own.
const READ_ONLY = /readonly database|read-only database|SQLITE_READONLY|Read-only file system/i;
const NOT_A_FILE = /Is a directory/i;
const GONE = /disk I\/O error|SQLITE_IOERR|Stale file handle|Input\/output error/i;
// What SQLite says when it cannot tell why: the folder is looked at.
const UNSPECIFIC = /disk I\/O error|SQLITE_IOERR|unable to open database file|SQLITE_CANTOPEN/i;
// SQLite's first `-shm` is 32 KiB: a folder that cannot take as much cannot take the database.
const PROBE_BYTES = new Uint8Array(32 * 1024);

/**
 * Tells a failure to open or write `path` as the disk's problem, when it is one.
 *
 * @param error What the open or the write threw.
 * @param path The file (or folder) that could not be opened or written.
 * @returns The refusal to throw instead, or null when the failure is not the disk's.
 */
export function storageFailure(error: unknown, path: string): StorageError | null {
  if (error instanceof StorageError) return error;
  // Sync's own refusals say what they mean already.
  if (!(error instanceof Error) || error instanceof SyncError) return null;
  const code = (error as { code?: unknown }).code;
  const { message } = error;
  let problem: StorageProblem | null = null;
  if ((typeof code === "string" && FULL_CODES.has(code)) || FULL.test(message)) problem = "full";
  else if (
    (typeof code === "string" && READ_ONLY_CODES.has(code)) || READ_ONLY.test(message)
  ) problem = "read-only";
  else if (code === "EISDIR" || NOT_A_FILE.test(message)) problem = "not-a-file";
  else if ((typeof code === "string" && GONE_CODES.has(code)) || GONE.test(message)) {
    problem = "unreachable";
  }
  return problem === null ? null : refusal(problem, path, message);
}

/**
 * {@linkcode storageFailure} for a database that could not be opened. SQLite
 * says only "unable to open database file" whatever the cause, and "disk I/O
 * error" when it cannot size the files it keeps beside the database (a full
 * disk, one remounted read-only after an error), so the place is looked at:
 * a folder where the file belongs, a folder that is gone, a folder no file
 * can be made or written in (read-only, full).
 *
 * @param error What opening the database threw.
 * @param path The database file.
 * @returns The refusal to throw instead, or null when the disk shows no problem.
 */
export async function openingFailure(error: unknown, path: string): Promise<StorageError | null> {
  const told = storageFailure(error, path);
  if (error instanceof SyncError || (told !== null && told.problem !== "unreachable")) return told;
  try {
    if ((await Deno.lstat(path)).isDirectory) return refusal("not-a-file", path, "");
  } catch {
    // No file there yet: the folder decides.
  }
  return await folderFailure(path) ?? told;
}

/**
 * {@linkcode storageFailure} for a write to an open database. What names its
 * problem is told as it is; SQLite's words that name none ("disk I/O error",
 * "unable to open database file") have the folder looked at, as
 * {@linkcode openingFailure} does, so a full or read-only disk is told as such.
 *
 * @param error What the write threw.
 * @param path The database file.
 * @returns The refusal to throw instead, or null when the failure is not the disk's.
 */
export async function writingFailure(error: unknown, path: string): Promise<StorageError | null> {
  const told = storageFailure(error, path);
  if (error instanceof SyncError || !(error instanceof Error) || !UNSPECIFIC.test(error.message)) {
    return told;
  }
  if (told !== null && told.problem !== "unreachable") return told;
  return await folderFailure(path) ?? told;
}

/**
 * What the folder holding `path` shows when a file as large as SQLite's
 * first `-shm` is made and written in it: full, read-only, gone; null when it
 * takes one.
 */
async function folderFailure(path: string): Promise<StorageError | null> {
  const folder = folderOf(path);
  let probe: string | null = null;
  try {
    probe = await Deno.makeTempFile({ dir: folder, prefix: ".sync-write-probe-" });
    // A file of no bytes needs no room: only writing finds a full disk.
    await Deno.writeFile(probe, PROBE_BYTES);
  } catch (failure) {
    if (failure instanceof Deno.errors.NotFound) {
      return refusal("unreachable", path, `its folder ${folder} is gone`);
    }
    return storageFailure(failure, path);
  } finally {
    if (probe !== null) await Deno.remove(probe).catch(() => {});
  }
  return null;
}

function refusal(problem: StorageProblem, path: string, reason: string): StorageError {
  return new StorageError(TELLS.get(problem)!(path, reason), { problem, path });
}

/**
 * The folder holding the file at `path`, a path as Sync makes them (absolute,
 * `/`-separated, no trailing `/`): written here rather than taken from
 * `node:path`, whose first import costs the CLI's short-lived process
 * several megabytes.
 */
function folderOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at === -1 ? "." : path.slice(0, at) || "/";
}
