/**
 * Every Deno KV key the clock writes in the installation: its lease, the
 * scheduled-projects list, the switch's "off" exceptions, the stamps of
 * attempts, the recent outcomes that decide review, and skip marks. Keys are
 * built here and nowhere else, so their shapes — which data already stored
 * must keep matching — can be read in one place.
 *
 * The prefixes take their scope from the left: none for every project, a
 * project, then a package in it.
 *
 * @module
 */

const SCHEDULED_PROJECT = "scheduled_project";
const CLOCK_OFF = "clock_off";
const SCHEDULE_STAMP = "schedule_stamp";
const SCHEDULE_SKIP = "schedule_skip";

/** `[head, ...scope]`, the scope cut at its first absent part. */
function scoped(head: string, ...scope: (string | undefined)[]): Deno.KvKey {
  const end = scope.indexOf(undefined);
  return [head, ...(end < 0 ? scope : scope.slice(0, end)) as string[]];
}

/**
 * Key written with every change to the scheduled list, the switch's "off"
 * exceptions, or stamps and skip marks made other than by the clock's own
 * looks (a package's schedule forgotten on removal): its versionstamp moves
 * with each, so one read tells the clock whether what it keeps in memory is
 * still what the installation holds.
 */
export function clockChangedKey(): Deno.KvKey {
  return ["clock_changed"];
}

/** Key of the installation's clock lease. */
export function clockLeaseKey(): Deno.KvKey {
  return ["clock_lease"];
}

/**
 * Key of a project on the scheduled list.
 *
 * @param path The project's resolved path.
 */
export function scheduledProjectKey(path: string): Deno.KvKey {
  return [SCHEDULED_PROJECT, path];
}

/** Prefix of the whole scheduled list. */
export function scheduledProjectsPrefix(): Deno.KvKey {
  return [SCHEDULED_PROJECT];
}

/**
 * Key of the "off" exception for a package in a project.
 *
 * @param project The project's resolved path.
 * @param id The package id.
 */
export function clockOffKey(project: string, id: string): Deno.KvKey {
  return [CLOCK_OFF, project, id];
}

/**
 * Prefix of the "off" exceptions: of every project, or of one.
 *
 * @param project The project's resolved path; omitted for every project.
 */
export function clockOffsPrefix(project?: string): Deno.KvKey {
  return scoped(CLOCK_OFF, project);
}

/**
 * Key of the stamp of a scheduled handler in a project.
 *
 * @param project The project's resolved path.
 * @param id The package id.
 * @param handler The handler's name.
 */
export function scheduleStampKey(project: string, id: string, handler: string): Deno.KvKey {
  return [SCHEDULE_STAMP, project, id, handler];
}

/**
 * Prefix of stamps: of every project, of one, or of one package in one.
 *
 * @param project The project's resolved path; omitted for every project.
 * @param id The package id; omitted for every package.
 */
export function scheduleStampsPrefix(project?: string, id?: string): Deno.KvKey {
  return scoped(SCHEDULE_STAMP, project, id);
}

/**
 * Key of a package's last scheduled outcomes in a project, oldest first:
 * what tells whether it needs review.
 *
 * @param project The project's resolved path.
 * @param id The package id.
 */
export function scheduleOutcomesKey(project: string, id: string): Deno.KvKey {
  return ["schedule_outcomes", project, id];
}

/**
 * Key of a skip mark. The handler is empty when the skip concerns the whole
 * package, and both are empty when it concerns the whole project.
 *
 * @param project The project's resolved path.
 * @param id The package id, or empty.
 * @param handler The handler's name, or empty.
 */
export function scheduleSkipKey(project: string, id = "", handler = ""): Deno.KvKey {
  return [SCHEDULE_SKIP, project, id, handler];
}

/**
 * Prefix of skip marks: of every project, of one, or of one package in one.
 *
 * @param project The project's resolved path; omitted for every project.
 * @param id The package id; omitted for every package.
 */
export function scheduleSkipsPrefix(project?: string, id?: string): Deno.KvKey {
  return scoped(SCHEDULE_SKIP, project, id);
}
