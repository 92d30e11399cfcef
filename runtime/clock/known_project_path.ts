/**
 * Where a project a person named went: its folder may be gone while the
 * installation still remembers it (its receipts, its place on the clock's
 * scheduled list), and what is remembered stays reachable by the path given.
 *
 * @module
 */
import { resolve } from "node:path";
import { NotFoundError } from "../errors.ts";
import { keyableProjectPath, readProject, resolveProjectDir } from "../projects/mod.ts";
import { isScheduledProject } from "./scheduled_projects.ts";

/**
 * The project a person named: its real path, or for a folder that is gone,
 * the path as given when the installation still remembers it (its receipts
 * stay readable).
 *
 * @param kv The installation's KV.
 * @param dir The project folder as the person gave it.
 * @throws {NotFoundError} when the folder is gone and the installation does not know it.
 */
export async function knownProjectPath(kv: Deno.Kv, dir: string): Promise<string> {
  try {
    return await resolveProjectDir(dir);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    const path = keyableProjectPath(resolve(dir), dir);
    if (await readProject(kv, path) || await isScheduledProject(kv, path)) return path;
    throw error;
  }
}

/**
 * The project a person named, or, when its folder is gone but the clock still
 * has it, an error that says what to do about it.
 *
 * @param kv The installation's KV.
 * @param dir The project folder as the person gave it.
 * @throws {NotFoundError} when the folder is gone; when the clock still has
 *   it, the message says how to open it where it is now and forget the old place.
 */
export async function projectOrWhereItWent(kv: Deno.Kv, dir: string): Promise<string> {
  try {
    return await resolveProjectDir(dir);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    const path = keyableProjectPath(resolve(dir), dir);
    if (!await isScheduledProject(kv, path)) throw error;
    throw new NotFoundError(
      `The folder ${path} is gone; the clock still has it on its list and passes it over. ` +
        `Open the project where it is now (sync open --project <dir>), and take the old ` +
        `place off the list: sync projects forget ${path}`,
    );
  }
}
