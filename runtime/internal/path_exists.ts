/**
 * True when something (a file, folder or link) is at `path`.
 *
 * @throws Anything but "not found" (a permission refused, say), which is not an answer.
 */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
