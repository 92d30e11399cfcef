/**
 * Where a path named inside a folder Sync reads but does not control (a
 * package's folder, a device's account folder) leads once links are
 * followed, and whether that is still inside the folder: a link to
 * `/etc/passwd` is found for what it is before anything is read through it.
 *
 * @module
 */
import { join, relative } from "node:path";

/** Where a path inside a folder leads. */
export interface PathInside {
  /** The folder's own real path. */
  root: string;
  /** The real path the path leads to, links followed. */
  real: string;
  /**
   * The real path relative to the folder's real path, `/`-separated; `""`
   * for the folder itself; null when it leads outside the folder.
   */
  inside: string | null;
}

/**
 * Follows `path` from the folder `dir`, links included (the folder's own
 * path may be a link too), and says whether it stays inside.
 *
 * @param dir The folder.
 * @param path Relative to the folder.
 * @throws {Deno.errors.NotFound} when the folder or the path is not there (or a link is broken).
 * @throws Deno's other file system errors (`PermissionDenied`, …) as they come.
 */
export async function pathInside(dir: string, path: string): Promise<PathInside> {
  const root = await Deno.realPath(dir);
  const real = await Deno.realPath(join(dir, path));
  const rel = relative(root, real);
  const outside = rel === ".." || rel.startsWith("../") || rel.startsWith("/");
  return { root, real, inside: outside ? null : rel };
}

/**
 * What a file system entry is, in words: "a folder", "a FIFO", "a device",
 * "a socket", "a regular file", or "not a file".
 *
 * @param info What `Deno.stat` answered.
 */
export function fileKind(info: Deno.FileInfo): string {
  if (info.isFile) return "a regular file";
  if (info.isDirectory) return "a folder";
  if (info.isFifo) return "a FIFO";
  if (info.isCharDevice || info.isBlockDevice) return "a device";
  if (info.isSocket) return "a socket";
  return "not a file";
}
