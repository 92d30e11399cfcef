/**
 * True when a folder is at `path` (a link to one counts): what the clock, the
 * app and the CLI ask of a remembered project before calling it gone.
 *
 * @module
 */

/**
 * True when `path` is a folder; false when it is gone, is something else, or
 * cannot be looked at.
 *
 * @param path The folder's path.
 */
export async function isFolder(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
