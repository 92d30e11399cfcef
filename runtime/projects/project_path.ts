/**
 * The one reading of a project path as a caller gives it: every web route
 * that takes a project (in its query or its JSON body), `/mcp`, and the CLI's
 * `--project` pass what they were given through {@linkcode projectPath}, so a
 * path is refused the same way, in the same words, wherever it is given.
 *
 * A relative path is refused: `sync serve` runs in a folder of its own, which
 * is not the folder the person or tool had in mind, so a relative path would
 * name a different project from the one meant. Only the CLI knows the folder
 * the person typed the command in, and resolves against it.
 *
 * @module
 */
import { isAbsolute, resolve } from "../internal/posix_path.ts";
import { InvalidInputError } from "../errors.ts";
import { PROJECT_LIMITS } from "../limits.ts";

/** Options for {@linkcode projectPath}. */
export interface ProjectPathOptions {
  /** The name the path was given under, for the message; `project` unless given. */
  name?: string;
  /**
   * The folder a relative path is taken from. Given by the CLI only, which
   * knows the folder the person typed the command in; absent, a relative
   * path is refused.
   */
  relativeTo?: string;
}

/**
 * Reads a project path as given: a string naming a folder by its absolute
 * path. The folder is not looked at here (the caller resolves it, or opens
 * it, as its work needs).
 *
 * @param value What the caller gave, as it came (a query parameter, a JSON field, a flag).
 * @param options The name it was given under, and the CLI's folder.
 * @returns The absolute path: as given, or (the CLI) resolved from its folder.
 * @throws {InvalidInputError} when it is missing, not a string, longer than any path the
 *   system opens, or relative with no folder to take it from.
 *
 * @example
 * ```ts
 * projectPath("/home/ada/site"); // "/home/ada/site"
 * projectPath("site"); // throws: project: "site" is relative; give the project folder's absolute path
 * projectPath("site", { name: "--project", relativeTo: "/home/ada" }); // "/home/ada/site"
 * ```
 */
export function projectPath(value: unknown, options: ProjectPathOptions = {}): string {
  const name = options.name ?? "project";
  if (value === undefined || value === null || value === "") {
    throw new InvalidInputError(`${name}: required: the project folder's absolute path`);
  }
  if (typeof value !== "string") {
    throw new InvalidInputError(
      `${name}: expected the project folder's absolute path, got ${JSON.stringify(value)}`,
    );
  }
  if (value.includes("\0")) {
    throw new InvalidInputError(
      `${name}: ${JSON.stringify(value)} holds a NUL character, which no path may hold`,
    );
  }
  const path = options.relativeTo !== undefined ? resolve(options.relativeTo, value) : value;
  const bytes = encoder.encode(path).byteLength;
  if (bytes > PATH_MAX_BYTES) {
    // The system refuses to look such a path up at all, which would read as
    // "no such folder"; it is the length that is wrong.
    throw new InvalidInputError(
      `${name}: the path is ${bytes} bytes long, longer than any path the system opens ` +
        `(${PATH_MAX_BYTES} bytes); a project's path may be at most ` +
        `${PROJECT_LIMITS.maxPathBytes} bytes. Give the project folder's own, shorter path`,
    );
  }
  if (options.relativeTo !== undefined) return path;
  if (!isAbsolute(value)) {
    throw new InvalidInputError(
      `${name}: ${JSON.stringify(value)} is relative; give the project folder's absolute path`,
    );
  }
  return value;
}

/** Linux's PATH_MAX less its closing NUL: the longest path a system call takes. */
const PATH_MAX_BYTES = 4095;

const encoder = new TextEncoder();
