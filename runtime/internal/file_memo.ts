/**
 * What was made of a file, kept while the file stays the same: a read of a
 * small file that has not changed since the last read costs one `stat`, not a
 * read and a parse. The file is the same while its inode, size and
 * modification and change times are; a file replaced by a rename, as Sync
 * writes its files, has another inode. The system keeps those times coarsely
 * (a few ms apart), so two writes in a row may leave the same ones: a file
 * changed within the last {@linkcode SETTLED_MS} is therefore read again every
 * time, and remembered only once it has been still for that long.
 *
 * @module
 */
import { keepNewest } from "./keep_newest.ts";

/** How long a file must have been left alone before what was made of it is kept. */
const SETTLED_MS = 2_000;

/** Files remembered at most; past it the oldest half is forgotten. */
const KEPT = 4_096;

interface Kept<T> {
  stamp: string;
  value: T;
}

/**
 * Answers what `make` made of the file at `path` when it was last made and
 * the file has not changed since; otherwise makes it again (and keeps it).
 * When the file cannot be looked at, `make` runs without remembering, so it
 * reports the missing file in its own words.
 */
export class FileMemo<T> {
  #kept = new Map<string, Kept<T>>();

  /**
   * What `make` answers for `path`, made again only when the file changed.
   *
   * @param path The file.
   * @param make Reads the file and makes the value; what it throws is thrown and nothing is kept.
   */
  async get(path: string, make: () => Promise<T>): Promise<T> {
    const stamp = fileStamp(path);
    if (stamp === null) return await make();
    const kept = this.#kept.get(path);
    if (kept && kept.stamp === stamp.stamp) return kept.value;
    const value = await make();
    // Stamped before reading: a change while it was read makes the next look read again.
    if (Date.now() - stamp.changedAt >= SETTLED_MS) this.#keep(path, { stamp: stamp.stamp, value });
    else this.#kept.delete(path);
    return value;
  }

  /** Forgets everything remembered. */
  clear(): void {
    this.#kept.clear();
  }

  #keep(path: string, kept: Kept<T>): void {
    keepNewest(this.#kept, path, kept, KEPT);
  }
}

/**
 * A file's identity and version, or null when it cannot be looked at (gone,
 * or not a file). A synchronous `stat`: one system call, without the cost of
 * an asynchronous operation around it.
 */
function fileStamp(path: string): { stamp: string; changedAt: number } | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    return null;
  }
  if (!info.isFile) return null;
  const mtime = info.mtime?.getTime();
  // Without a modification time or an inode, a change cannot be told: nothing is kept.
  if (mtime === undefined || info.ino === null) return null;
  const ctime = info.ctime?.getTime() ?? mtime;
  return {
    stamp: `${info.dev}:${info.ino}:${info.size}:${mtime}:${ctime}`,
    changedAt: Math.max(mtime, ctime),
  };
}
