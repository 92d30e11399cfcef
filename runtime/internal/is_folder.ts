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
export function isFolder(path: string): Promise<boolean> {
  // Synchronous: one system call, asked of every project at every tick of the clock.
  try {
    return Promise.resolve(Deno.statSync(path).isDirectory);
  } catch {
    return Promise.resolve(false);
  }
}
