/**
 * The scheduled-projects list: the projects the clock ticks for. It is its own
 * list in the installation, not a view of recent projects, because a capped
 * list would let a project stop ticking silently once others pushed it out.
 * It is added to when a project whose packages declare a schedule is opened,
 * and nothing shortens it but a person.
 *
 * @module
 */
import { servingPackage } from "../packages/mod.ts";
import { readDeclaredIds, readProject, resolveProjectDir } from "../projects/mod.ts";
import { clockChangedKey, scheduledProjectKey, scheduledProjectsPrefix } from "./keys.ts";
import { InvalidInputError } from "../errors.ts";
import { describeGiven } from "../internal/describe_given.ts";

/** One project on the scheduled list. */
export interface ScheduledProject {
  /** Absolute, resolved path of the project folder. */
  path: string;
  /** When the project was first put on the list, as an ISO 8601 time. */
  addedAt: string;
}

function checkPath(path: unknown): string {
  if (typeof path !== "string" || path === "") {
    throw new InvalidInputError(
      `A project path must be a non-empty string, got ${describeGiven(path)}.`,
    );
  }
  return path;
}

/**
 * Puts a project on the scheduled list. Adding one already there keeps the
 * time it was first added.
 *
 * @param kv The installation's KV.
 * @param path The project's resolved path, as the host keys it.
 * @returns True when the project was not on the list before.
 */
export async function addScheduledProject(
  kv: Deno.Kv,
  path: string,
  options: { now?: () => number } = {},
): Promise<boolean> {
  const key = scheduledProjectKey(checkPath(path));
  const now = options.now ?? Date.now;
  const value: ScheduledProject = { path, addedAt: new Date(now()).toISOString() };
  const result = await kv.atomic().check({ key, versionstamp: null }).set(key, value)
    .set(clockChangedKey(), true).commit();
  return result.ok;
}

/**
 * Takes a project off the scheduled list. Only a person does this; the clock
 * never does, not even for a project whose folder is gone.
 *
 * @param kv The installation's KV.
 * @param path The project's path as the list holds it (resolved when it was added).
 * @returns True when the project was on the list.
 * @throws {InvalidInputError} when `path` is empty.
 */
export async function forgetScheduledProject(kv: Deno.Kv, path: string): Promise<boolean> {
  const key = scheduledProjectKey(checkPath(path));
  const entry = await kv.get(key);
  if (entry.versionstamp === null) return false;
  const result = await kv.atomic().check(entry).delete(key).set(clockChangedKey(), true).commit();
  // A concurrent forget that won the race removed it all the same.
  return result.ok;
}

/** True when the project is on the scheduled list. */
export async function isScheduledProject(kv: Deno.Kv, path: string): Promise<boolean> {
  return (await kv.get(scheduledProjectKey(checkPath(path)))).versionstamp !== null;
}

/**
 * Every project on the scheduled list, in path order. The list is never capped.
 *
 * @param kv The installation's KV.
 * @returns Each project with when it joined the list.
 */
export async function listScheduledProjects(kv: Deno.Kv): Promise<ScheduledProject[]> {
  const out: ScheduledProject[] = [];
  for await (const entry of kv.list<ScheduledProject>({ prefix: scheduledProjectsPrefix() })) {
    out.push(entry.value);
  }
  return out;
}

/** Options for {@linkcode rememberIfScheduled}. */
export interface RememberIfScheduledOptions {
  /** The host's clock, in ms: when the project joins the list. */
  now: () => number;
}

/**
 * Puts a project on the scheduled list when any package serving it declares a
 * schedule. Call it right after the project is opened (so the ids it declares
 * are remembered); packages that cannot serve right now are passed over.
 *
 * @param kv The installation's KV.
 * @param project The project folder.
 * @param options The clock, for when the project joins the list.
 * @returns True when the project is on the list afterwards because of a schedule.
 * @throws {NotFoundError} when the project folder does not exist.
 */
export async function rememberIfScheduled(
  kv: Deno.Kv,
  project: string,
  options: RememberIfScheduledOptions,
): Promise<boolean> {
  const path = await resolveProjectDir(project);
  // The remembered ids are what the clock will tick with; fall back to the
  // file only for a project that was never opened.
  const ids = (await readProject(kv, path))?.extensionIds ?? await readDeclaredIds(path);
  for (const id of ids) {
    let scheduled = false;
    try {
      scheduled = (await servingPackage(kv, path, id, { declaredIds: ids })).manifest.schedule
        .length > 0;
    } catch {
      // Not approved, or gone: it cannot tick now, and re-opening will ask again.
      continue;
    }
    if (scheduled) {
      await addScheduledProject(kv, path, { now: options.now });
      return true;
    }
  }
  return false;
}
