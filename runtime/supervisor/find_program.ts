/**
 * Where the program of a command is.
 *
 * @module
 */
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { ProcessStartError } from "../errors.ts";
import { searchPath } from "./search_path.ts";

/** Options for {@linkcode findProgram}. */
export interface FindProgramOptions {
  /** Sync's own `HOME`: its `.local/bin` is looked in after `PATH`. */
  home?: string;
}

/**
 * The path of the program `command` names, found much as a shell would: a
 * name with a `/` is a path (relative to `cwd`), any other name is looked for
 * in each folder of `path` in turn, then in `~/.local/bin` (see
 * `search_path.ts`). Looking first, rather than letting the start fail, lets
 * the message name the program and what to do.
 *
 * Only absolute folders of `path` are looked in: a relative one would be
 * taken from `cwd`, and whoever chooses the folder a program starts in (a
 * screen) would then choose which program a name runs.
 *
 * @param command A program's name (`codex-acp`) or path (`./bin/agent`).
 * @param path The `PATH` to look in: Sync's own, never one its caller gave.
 * @param cwd The folder the process starts in.
 * @param options Sync's own home.
 * @throws {ProcessStartError} when there is no such program, or it is not executable.
 */
export async function findProgram(
  command: string,
  path: string | undefined,
  cwd: string,
  options: FindProgramOptions = {},
): Promise<string> {
  if (command.length === 0) {
    throw new ProcessStartError("Cannot start a process with no program: the command is empty");
  }
  if (command.includes("/")) {
    const file = isAbsolute(command) ? command : resolve(cwd, command);
    const found = await executable(file);
    if (found === "yes") return file;
    throw new ProcessStartError(
      found === "no"
        ? `Cannot start ${command}: there is no file ${file}. Check the command`
        : `Cannot start ${command}: ${file} is not an executable file. Check the command, ` +
          `or make it executable (chmod +x)`,
    );
  }
  const search = searchPath(path, options.home);
  for (const folder of search.folders) {
    const file = join(folder, command);
    if (await executable(file) === "yes") return file;
  }
  const onPath = search.folders.slice(0, search.folders.length - search.added.length);
  throw new ProcessStartError(
    `Cannot start ${command}: no such program on PATH (${onPath.join(delimiter) || "empty"}` +
      `${search.relativeLeftOut ? "; its relative folders are not looked in" : ""})` +
      `${search.added.length > 0 ? ` or in ${search.added.join(", ")}` : ""}. ` +
      `Install ${command}, or add the folder it is in to PATH, or give its full path in the command`,
  );
}

/** Whether `file` is an executable file (`"yes"`), exists but is not (`"not executable"`), or not at all. */
async function executable(file: string): Promise<"yes" | "not executable" | "no"> {
  try {
    const info = await Deno.stat(file);
    if (!info.isFile) return "not executable";
    // Without a mode (Windows), a file is taken as runnable and the start says otherwise.
    return info.mode === null || (info.mode & 0o111) !== 0 ? "yes" : "not executable";
  } catch {
    return "no";
  }
}
