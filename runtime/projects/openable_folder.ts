/**
 * Which folders a person may open as a project from the web app. A project
 * keeps `.sync/` inside its folder, so opening one writes there; a folder
 * that holds everything else is not a project.
 *
 * @module
 */
import { StorageError } from "../errors.ts";
import { resolveProjectDir } from "./project.ts";

/** Options for {@linkcode openableFolder}. */
export interface OpenableFolderOptions {
  /**
   * Whether to find out that this process can write in the folder; true
   * unless false. False only for a caller that writes nothing there itself
   * and may not write at all (`sync mcp`, whose serve asks again, probe
   * included, before it opens the project).
   */
  probeWrite?: boolean;
}

/**
 * Resolves a folder to open as a project, refusing the filesystem root and
 * the person's home folder (as `resolveProjectDir` refuses them for every
 * caller) and a folder this process cannot write.
 *
 * @param dir The folder, as given.
 * @param options Whether to probe for writing.
 * @returns The folder's resolved path.
 * @throws {NotFoundError} when it does not exist or is not a folder.
 * @throws {InvalidInputError} when it is the filesystem root or the home folder, saying which.
 * @throws {StorageError} when this process cannot write in it: the folder's state, which a
 *   person changes, not a wrong request.
 */
export async function openableFolder(
  dir: string,
  options: OpenableFolderOptions = {},
): Promise<string> {
  const path = await resolveProjectDir(dir);
  if (options.probeWrite === false) return path;
  // Asking the system is the one way to know: permissions, read-only mounts,
  // access lists and Deno's own --allow-write all have their say.
  try {
    await Deno.remove(await Deno.makeTempFile({ dir: path, prefix: ".sync-write-probe-" }));
  } catch (error) {
    throw new StorageError(
      `Cannot open ${dir} as a project: this user cannot write in it (${
        (error as Error).message
      }), and a project keeps its memory in .sync/ there. Make the folder writable for this ` +
        `user (or mount its disk read-write), then open it again`,
      { problem: "read-only", path },
    );
  }
  return path;
}
