/**
 * The names in a folder, sorted, kept for the pages of a listing that follow:
 * `account.list` answers a page at a time and each page resumes in the folder
 * the last ended in, so a folder of 10,000 messages would otherwise be read
 * and sorted again for each of its 20 pages.
 *
 * @module
 */

/** A folder's names as read, and what the folder was when they were. */
interface Kept {
  names: readonly string[];
  ino: number | null;
  mtime: number;
  ctime: number;
  at: number;
}

/** Folders kept at once: the few a listing walks through. */
const MAX_KEPT = 8;
/** How long names are kept, in ms: the pages of one listing follow each other closely. */
const KEEP_MS = 30_000;
/**
 * How long a folder must have been unchanged when it is read for its names to
 * be kept, in ms. A folder's times have a grain (a millisecond for its
 * modification, a second for its status change, as Deno gives them): a name
 * added within the grain of the read could leave them as they were. A folder
 * unchanged for longer than the grain before it is read shows any later
 * change. The status change time is looked at too because no program can set
 * it back (`rsync -t` and `touch -d` set the modification time).
 */
const QUIET_MS = 2_000;

const kept = new Map<string, Kept>();

/**
 * The names in the folder at `real` (a real path), sorted by code unit: the
 * ones kept when the folder is as it was when they were read (its inode and
 * change time), otherwise read again.
 *
 * @param real The folder's real path.
 * @param now The clock, in ms; `Date.now` by default.
 * @throws Deno's file system errors (`NotFound`, `PermissionDenied`, …) as they come.
 */
export async function sortedFolderNames(
  real: string,
  now: () => number = Date.now,
): Promise<readonly string[]> {
  const before = Deno.statSync(real);
  const mtime = before.mtime?.getTime() ?? null;
  const ctime = before.ctime?.getTime() ?? null;
  const known = kept.get(real);
  if (
    known && known.mtime === mtime && known.ctime === ctime && known.ino === before.ino &&
    now() - known.at < KEEP_MS
  ) {
    return known.names;
  }
  const names = (await Array.fromAsync(Deno.readDir(real))).map((entry) => entry.name);
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  kept.delete(real);
  if (
    mtime !== null && ctime !== null && now() - Math.max(mtime, ctime) >= QUIET_MS
  ) {
    kept.set(real, { names, ino: before.ino, mtime, ctime, at: now() });
    if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
  }
  return names;
}
