/**
 * Whether a path is a symbolic link, and where to: what Sync keeps in a
 * project's `.sync` folder is written only into files of its own, never
 * through a link a project folder (a cloned repository, say) brought along.
 *
 * @module
 */

/**
 * Where `path` links to, or null when it is no link or is not there.
 *
 * @param path Any path.
 * @returns The link's target as written, or null.
 */
export async function linkTarget(path: string): Promise<string | null> {
  try {
    if (!(await Deno.lstat(path)).isSymlink) return null;
    return await Deno.readLink(path).catch(() => "somewhere it does not say");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
