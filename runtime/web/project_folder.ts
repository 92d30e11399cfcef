/**
 * The project a request names, read and checked the same way wherever it is
 * given (a query parameter or a JSON field): it must be an absolute path,
 * since the app has no working folder a relative one could mean, and the
 * folder must exist.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { InvalidInputError } from "../errors.ts";
import { resolveProjectDir } from "../projects/mod.ts";

/**
 * Resolves the project a request names.
 *
 * @param value What the request gave, as it came.
 * @param where Where it was given, for the message (such as `project` or `"project" in the body`).
 * @returns The project's resolved path.
 * @throws {InvalidInputError} when it is missing, not a string, or relative.
 * @throws {NotFoundError} when the folder does not exist.
 */
export async function projectFolder(value: unknown, where: string): Promise<string> {
  if (value === undefined || value === null || value === "") {
    throw new InvalidInputError(`${where}: required: the project folder's absolute path`);
  }
  if (typeof value !== "string") {
    throw new InvalidInputError(
      `${where}: expected the project folder's absolute path, got ${JSON.stringify(value)}`,
    );
  }
  if (!isAbsolute(value)) {
    throw new InvalidInputError(
      `${where}: ${JSON.stringify(value)} is relative; give the project folder's absolute path`,
    );
  }
  return await resolveProjectDir(value);
}
