/**
 * The folder a supervised process starts in.
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { ProcessStartError } from "../errors.ts";

/**
 * Makes the folder a process is to start in, and answers its absolute path.
 * `~` and a leading `~/` stand for `home`, as in a shell; a relative path is
 * taken from Sync's own folder; a folder that does not exist is created
 * (with its parents), so that an agent's scratch folder needs no setup.
 *
 * @param cwd The folder as configured.
 * @param home The person's home folder, for `~`.
 * @param program The program being started, for the message.
 * @throws {ProcessStartError} when `~` is used with no home known, or the folder cannot be made.
 */
export async function workingFolder(
  cwd: string,
  home: string | undefined,
  program: string,
): Promise<string> {
  let path = cwd;
  if (cwd === "~" || cwd.startsWith("~/")) {
    if (!home) {
      throw new ProcessStartError(
        `Cannot start ${program}: its folder ${cwd} starts with ~ and HOME is not set. ` +
          `Set HOME, or give the folder as an absolute path`,
      );
    }
    path = join(home, cwd.slice(2));
  }
  path = isAbsolute(path) ? path : resolve(path);
  try {
    await Deno.mkdir(path, { recursive: true });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ProcessStartError(
      `Cannot start ${program}: its folder ${path} cannot be made (${why}). ` +
        `Check that the folder's parent exists and is writable, or choose another folder`,
    );
  }
  return path;
}
