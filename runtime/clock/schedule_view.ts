/**
 * What the clock does in a project, as a person reads it: one row per
 * scheduled handler, read without running anything (`sync schedule`, and the
 * Extensions page's "What it does with no screen").
 *
 * @module
 */
import { isSwitchedOff } from "./switch.ts";
import type { SkipReason } from "./tick_report.ts";
import { skipReasonOf } from "./_tick_skips.ts";
import {
  describeEvery,
  loadPackage,
  type Manifest,
  parseEvery,
  readPackageRef,
  servingPackage,
} from "../packages/mod.ts";
import type { HandlerLimits } from "../limits.ts";
import { readDeclaredIds, readProject, resolveProjectDir } from "../projects/mod.ts";
import { needsReview, readStamps, type ScheduleStamp, type StampOutcome } from "./stamps.ts";
import { describeError } from "../internal/describe_error.ts";
import { listReceipts } from "../host/mod.ts";

/** One row of `sync schedule`: a scheduled handler of one package in one project. */
export interface ScheduleView {
  /** The package id. */
  packageId: string;
  /** The package's name, as people see it. */
  packageName: string;
  /** The handler the row calls, such as `issues.poll`. */
  handler: string;
  /** What the handler does, as the package wrote it on the schedule row. */
  description: string;
  /** The interval as the manifest writes it, like `1h`. */
  every: string;
  /** The interval as the host says it, like "every hour". */
  wording: string;
  /** False when a person switched the package's clock off in this project. */
  on: boolean;
  /**
   * Why the clock passes the package over although it is on: it is not
   * approved here, or cannot be loaded. Absent when it can run.
   */
  blocked?: { reason: SkipReason; message: string };
  /**
   * The last attempt, or null when it never ran. Times are ISO 8601: `at` is
   * when the clock found it due (intervals count from there), `startedAt` when
   * the call began, `endedAt` when it ended (absent while it runs).
   */
  lastAttempt: {
    at: string;
    startedAt: string;
    endedAt?: string;
    /** `interrupted`: it was still running when the process running it stopped. */
    outcome: StampOutcome | "interrupted";
    error?: { name: string; message: string };
  } | null;
  /**
   * When it is next due: now for a handler that never ran, null while switched
   * off or blocked. A time in the past means at the clock's next look.
   */
  nextDue: string | null;
  /** The package's last three scheduled attempts in this project all failed. */
  needsReview: boolean;
}

/** Options for {@linkcode describeSchedule}. */
export interface DescribeScheduleOptions {
  /** The host's clock, in ms. */
  now: () => number;
  /** The limits calls run under: how long a stamp may say "running" before it was interrupted. */
  limits: Pick<HandlerLimits, "timeoutMs" | "workerGraceMs">;
}

/**
 * What the clock does in a project, one row per scheduled handler, read
 * without running anything. A package that cannot serve right now still has
 * its rows (from the newest manifest that can be read), with why it is
 * passed over.
 *
 * @param kv The installation's KV.
 * @param projectDir The project folder.
 * @param options The clock, and the limits calls run under.
 * @throws {NotFoundError} when the project folder does not exist.
 */
export async function describeSchedule(
  kv: Deno.Kv,
  projectDir: string,
  options: DescribeScheduleOptions,
): Promise<ScheduleView[]> {
  const project = await resolveProjectDir(projectDir);
  const ids = (await readProject(kv, project))?.extensionIds ?? await readDeclaredIds(project);
  const stamps = await readStamps(kv, project);
  const now = options.now();
  // A stamp still "running" this long after it began belongs to a process that stopped.
  const interruptedAfter = options.limits.timeoutMs + options.limits.workerGraceMs + 60_000;
  const rows: ScheduleView[] = [];
  for (const id of ids) {
    let manifest: Manifest;
    let blocked: ScheduleView["blocked"];
    try {
      manifest = (await servingPackage(kv, project, id, { declaredIds: ids })).manifest;
    } catch (error) {
      blocked = { reason: skipReasonOf(error), message: describeError(error).message };
      const newest = await newestManifest(kv, id);
      if (!newest) {
        // Nothing of it can be read (a linked folder's manifest broken): its rows stay, from
        // what ran of it here, so the person sees why the clock passes it over.
        rows.push(...unreadableRows(id, blocked, stamps, {
          on: !await isSwitchedOff(kv, project, id),
          needsReview: await needsReview(kv, project, id),
          now,
          interruptedAfter,
        }));
        continue;
      }
      manifest = newest;
    }
    if (manifest.schedule.length === 0) continue;
    const on = !await isSwitchedOff(kv, project, id);
    const review = await needsReview(kv, project, id);
    for (const row of manifest.schedule) {
      const stamp = stamps.get(`${id}\0${row.handler}`) ?? null;
      const nextDue = !on || blocked ? null : stamp ? stamp.at + parseEvery(row.every) : now;
      rows.push({
        packageId: id,
        packageName: manifest.name,
        handler: row.handler,
        description: row.description,
        every: row.every,
        wording: describeEvery(row.every),
        on,
        ...(blocked ? { blocked } : {}),
        lastAttempt: stamp
          ? await endedByReceipt(
            kv,
            project,
            id,
            row.handler,
            viewStamp(stamp, now, interruptedAfter),
          )
          : null,
        nextDue: nextDue === null ? null : new Date(nextDue).toISOString(),
        needsReview: review,
      });
    }
  }
  return rows;
}

/**
 * The rows of a package whose manifest cannot be read: one per handler that
 * ran here on the clock (its schedule is known only from that), or one for
 * the package when none did.
 */
function unreadableRows(
  id: string,
  blocked: NonNullable<ScheduleView["blocked"]>,
  stamps: Map<string, ScheduleStamp>,
  state: { on: boolean; needsReview: boolean; now: number; interruptedAfter: number },
): ScheduleView[] {
  const ran = [...stamps.entries()].filter(([key]) => key.startsWith(`${id}\0`));
  const handlers = ran.length > 0 ? ran : [[`${id}\0`, null] as const];
  return handlers.map(([key, stamp]) => ({
    packageId: id,
    packageName: id,
    handler: key.slice(id.length + 1),
    description: "its schedule cannot be read now",
    every: "",
    wording: "as its manifest says once it reads again",
    on: state.on,
    blocked,
    lastAttempt: stamp ? viewStamp(stamp, state.now, state.interruptedAfter) : null,
    nextDue: null,
    needsReview: state.needsReview,
  }));
}

/** The manifest of the artefact serving `id` on this machine, or null when it cannot be read. */
async function newestManifest(kv: Deno.Kv, id: string): Promise<Manifest | null> {
  const ref = await readPackageRef(kv, id);
  if (!ref) return null;
  try {
    return (await loadPackage(ref)).manifest;
  } catch {
    return null;
  }
}

/**
 * An attempt the stamp still calls running, as its receipt tells it once one
 * is written: a process that stopped mid-call leaves the stamp as it was, and
 * the next process writes the call's `interrupted` receipt (the call journal,
 * an expired claim) without reaching the clock's stamp.
 */
async function endedByReceipt(
  kv: Deno.Kv,
  project: string,
  id: string,
  handler: string,
  attempt: NonNullable<ScheduleView["lastAttempt"]>,
): Promise<NonNullable<ScheduleView["lastAttempt"]>> {
  if (attempt.outcome !== "running") return attempt;
  const receipts = await listReceipts(kv, project, { packageId: id, limit: 20 });
  const ended = receipts.find((r) =>
    r.handler === handler && r.occasion.kind === "clock" && r.startedAt >= attempt.startedAt
  );
  if (!ended || ended.outcome !== "interrupted") return attempt;
  return {
    ...attempt,
    endedAt: ended.endedAt,
    outcome: "interrupted",
    ...(ended.error ? { error: ended.error } : {}),
  };
}

function viewStamp(
  stamp: ScheduleStamp,
  now: number,
  interruptedAfter: number,
): NonNullable<ScheduleView["lastAttempt"]> {
  const interrupted = stamp.outcome === "running" && now - stamp.startedAt > interruptedAfter;
  return {
    at: new Date(stamp.at).toISOString(),
    startedAt: new Date(stamp.startedAt).toISOString(),
    ...(stamp.endedAt !== undefined ? { endedAt: new Date(stamp.endedAt).toISOString() } : {}),
    outcome: interrupted ? "interrupted" : stamp.outcome,
    ...(stamp.error ? { error: stamp.error } : {}),
  };
}
