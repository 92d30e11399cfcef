/**
 * The project a request names, read the one way every route reads it
 * (`projectPath`: given, a string, absolute) and resolved: the folder must
 * exist.
 *
 * @module
 */
import { projectPath, resolveProjectDir } from "../projects/mod.ts";

/**
 * Resolves the project a request names, in its query or its JSON body.
 *
 * @param value What the request gave, as it came.
 * @returns The project's resolved path.
 * @throws {InvalidInputError} when it is missing, not a string, or relative.
 * @throws {NotFoundError} when the folder does not exist.
 */
export async function projectFolder(value: unknown): Promise<string> {
  return await resolveProjectDir(projectPath(value));
}
