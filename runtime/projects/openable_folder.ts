/**
 * Which folders a person may open as a project from the web app. A project
 * keeps `.sync/` inside its folder, so opening one writes there; a folder
 * that holds everything else is not a project.
 *
 * @module
 */
import { parse } from "node:path";
import { InvalidInputError } from "../errors.ts";
import { resolveProjectDir } from "./project.ts";

/** Options for {@linkcode openableFolder}. */
export interface OpenableFolderOptions {
  /** The person's home folder, which is never a project itself; unknown when absent. */
  userHome?: string;
  /**
   * Whether to find out that this process can write in the folder; true
   * unless false. False only for a caller that writes nothing there itself
   * and may not write at all (`sync mcp`, whose serve asks again, probe
   * included, before it opens the project).
   */
  probeWrite?: boolean;
}

/**
 * Resolves a folder to open as a project, refusing the filesystem root, the
 * person's home folder itself and a folder this process cannot write.
 *
 * @param dir The folder, as given.
 * @param options The person's home folder, and whether to probe for writing.
 * @returns The folder's resolved path.
 * @throws {NotFoundError} when it does not exist or is not a folder.
 * @throws {InvalidInputError} when it is one of the folders above, saying which.
 */
export async function openableFolder(
  dir: string,
  options: OpenableFolderOptions = {},
): Promise<string> {
  const path = await resolveProjectDir(dir);
  if (parse(path).root === path) {
    throw new InvalidInputError(
      `Cannot open ${dir} as a project: it is the filesystem root; open the project's own folder`,
    );
  }
  if (options.userHome && path === await realPathOrSelf(options.userHome)) {
    throw new InvalidInputError(
      `Cannot open ${dir} as a project: it is your home folder; open the project's own folder`,
    );
  }
  if (options.probeWrite === false) return path;
  // Asking the system is the one way to know: permissions, read-only mounts,
  // access lists and Deno's own --allow-write all have their say.
  try {
    await Deno.remove(await Deno.makeTempFile({ dir: path, prefix: ".sync-write-probe-" }));
  } catch (error) {
    throw new InvalidInputError(
      `Cannot open ${dir} as a project: this user cannot write in it (${
        (error as Error).message
      }), and a project keeps its memory in .sync/ there`,
    );
  }
  return path;
}

async function realPathOrSelf(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return path;
  }
}
