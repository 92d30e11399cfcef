/**
 * The files an agent may read and write through Sync (`fs/read_text_file`,
 * `fs/write_text_file`): text files inside the project folder, and nowhere
 * else. The agent is a program of its own and reaches the disk as it likes;
 * what these calls govern is what it reaches *through Sync*, which includes
 * files an editor holds unsaved in other clients, so the line is drawn at the
 * folder the person gave. Sync's own folder in the project (`.sync/`, where
 * the project's memory lives) is refused too: a record is changed through
 * the host, never by writing its database.
 *
 * @module
 */
import { mkdir, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import { readFileAtMost } from "../internal/read_file_at_most.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";

/** The project folder as the agent sees it, resolved once. */
export interface ProjectFolder {
  /** The folder as given, absolute. */
  path: string;
  /** The folder with every link resolved, which paths are compared with. */
  real: string;
}

/**
 * Resolves the project folder, so that a link inside it cannot lead out.
 *
 * @param path The project folder, absolute.
 * @throws {Error} when the folder does not exist.
 */
export async function projectFolder(path: string): Promise<ProjectFolder> {
  return { path, real: await realpath(path) };
}

/**
 * Reads a text file inside the project, whole or from `line` (1-based) for
 * `limit` lines.
 *
 * @param folder The project folder.
 * @param path The absolute path the agent asked for.
 * @param range The first line and the number of lines, when the agent gave them.
 * @returns The text.
 * @throws {RequestError} the answer the agent gets: outside the project, in
 *   `.sync/`, missing, or larger than `AGENT_LIMITS.maxFileBytes`.
 */
export async function readProjectFile(
  folder: ProjectFolder,
  path: string,
  range: { line?: number | null; limit?: number | null } = {},
): Promise<string> {
  const real = await resolveInside(folder, path, "read");
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(real);
  } catch {
    throw refusal(`Cannot read ${path}: there is no such file in the project`);
  }
  if (!info.isFile) throw refusal(`Cannot read ${path}: it is not a file`);
  // Read no further than the limit even when the file grows after it was looked at.
  const bytes = info.size > AGENT_LIMITS.maxFileBytes
    ? null
    : await readFileAtMost(real, AGENT_LIMITS.maxFileBytes);
  if (bytes === null) {
    throw refusal(
      `Cannot read ${path}: it is over ${AGENT_LIMITS.maxFileBytes} bytes, and files are read ` +
        `through Sync up to ${AGENT_LIMITS.maxFileBytes} bytes; read it directly`,
    );
  }
  const text = new TextDecoder().decode(bytes);
  if (range.line == null && range.limit == null) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (range.line ?? 1) - 1);
  const end = range.limit == null ? lines.length : start + Math.max(0, range.limit);
  return lines.slice(start, end).join("\n");
}

/**
 * Writes a text file inside the project, making the folders it needs.
 *
 * @param folder The project folder.
 * @param path The absolute path the agent asked for.
 * @param content The whole new text of the file.
 * @throws {RequestError} the answer the agent gets: outside the project, in
 *   `.sync/`, or larger than `AGENT_LIMITS.maxFileBytes`.
 */
export async function writeProjectFile(
  folder: ProjectFolder,
  path: string,
  content: string,
): Promise<void> {
  const bytes = new TextEncoder().encode(content);
  if (bytes.length > AGENT_LIMITS.maxFileBytes) {
    throw refusal(
      `Cannot write ${path}: ${bytes.length} bytes is more than the ` +
        `${AGENT_LIMITS.maxFileBytes} bytes Sync writes for an agent`,
    );
  }
  const real = await resolveInside(folder, path, "write");
  await mkdir(dirname(real), { recursive: true });
  await Deno.writeFile(real, bytes);
}

/**
 * The real path of `path` when it is inside the project and outside `.sync/`.
 * A file that does not exist yet is placed under its nearest folder that
 * does, with that folder's links resolved.
 */
async function resolveInside(
  folder: ProjectFolder,
  path: string,
  verb: "read" | "write",
): Promise<string> {
  if (!isAbsolute(path)) {
    throw refusal(`Cannot ${verb} ${path}: paths must be absolute (the project is ${folder.path})`);
  }
  let existing = resolve(path);
  const rest: string[] = [];
  let real: string | null = null;
  while (real === null) {
    try {
      real = await realpath(existing);
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      rest.unshift(existing.slice(parent.length).replace(/^[\\/]+/, ""));
      existing = parent;
    }
  }
  const target = real === null ? resolve(path) : join(real, ...rest);
  const inside = relative(folder.real, target);
  if (inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw refusal(
      `Cannot ${verb} ${path}: it is outside the project folder ${folder.path}, and ` +
        `an agent reads and writes files through Sync only inside it`,
    );
  }
  if (inside === ".sync" || inside.startsWith(`.sync${sep}`)) {
    throw refusal(
      `Cannot ${verb} ${path}: .sync/ holds the project's memory, which changes only ` +
        `through Sync`,
    );
  }
  return target;
}

function refusal(message: string): RequestError {
  // -32602: the request's params (its path or content) are what is refused.
  return new RequestError(-32602, message, undefined);
}
