/**
 * What a look finds due in a project: the scheduled handlers of each
 * package that serves there whose interval has passed since their last
 * attempt (a handler that never ran is the most overdue of all), and what it
 * passes over instead — a project never opened here or whose folder is
 * gone, a package that cannot serve, a switch turned off. Private to the
 * clock's folder.
 *
 * @module
 */
import { parseEvery, servingPackage } from "../packages/mod.ts";
import { describeError } from "../internal/describe_error.ts";
import { isFolder } from "../internal/is_folder.ts";
import type { ScheduleStamp, SkipMark } from "./stamps.ts";
import type { TickReport } from "./tick_report.ts";
import type { TickReads } from "./_tick_reads.ts";
import { skipReasonOf, type TickSkips } from "./_tick_skips.ts";

/** How often the clock looks: once a minute, the shortest interval a manifest can ask for. */
export const LOOK_EVERY_MS = 60_000;

/**
 * How early a handler may be found due, as a share of the look interval.
 * Looks come round a little late or early; without this, a `1m` handler
 * stamped at one look and found a millisecond short at the next would run
 * every two minutes.
 */
const DUE_TOLERANCE = 0.5;

/** A handler found due in a look. */
export interface DueEntry {
  /** The project's resolved folder. */
  project: string;
  /** The package. */
  id: string;
  /** The handler. */
  handler: string;
  /** Ms past due; Infinity for a handler that never ran. */
  overdue: number;
  /** Position in which it was found, so ties keep a stable order. */
  order: number;
  /** A skip was marked for it, to clear once it runs. */
  marked: boolean;
  /** The ids remembered when the project was last opened. */
  declaredIds: readonly string[];
  /** The stamp seen when the clock looked; null when it never ran. */
  previous: ScheduleStamp | null;
}

/** What collecting the due handlers of a project is given by the clock. */
export interface CollectDueOptions {
  /** The installation's KV, where what serves a package is resolved. */
  kv: Deno.Kv;
  /** Closes what the host holds open of a project whose folder is gone. */
  forgetProject: (project: string) => Promise<void>;
  /** Where what is passed over is reported. */
  skips: TickSkips;
}

/**
 * Adds what is due in one project to `due`, and passes over what cannot
 * run.
 *
 * @param project The project's folder, as the scheduled list holds it.
 * @param at When the clock looks, in ms.
 * @param due Where the due handlers go.
 * @param report The tick's report, where skips go.
 * @param reads The tick's reads.
 * @param options The installation, the host's part, and where skips are reported.
 * @returns The time before which nothing in the project comes due, as its
 *   stamps and schedules stand.
 */
export async function collectDue(
  project: string,
  at: number,
  due: DueEntry[],
  report: TickReport,
  reads: TickReads,
  options: CollectDueOptions,
): Promise<number> {
  const { skips } = options;
  let quietUntil = Infinity;
  const marks = reads.byProject.marks.get(project) ?? new Map<string, SkipMark>();
  const info = reads.byProject.projects.get(project);
  if (!info) {
    await skips.skip(report, marks, { project }, "not-opened", {
      message: `${project} is on the scheduled list but was never opened here; open it to tick`,
      receipt: false,
    });
    return -Infinity;
  }
  if (!await isFolder(project)) {
    // A memory still open would be a deleted file: let go of it, so a
    // folder made again at the path is read afresh.
    await options.forgetProject(project);
    const scheduled = [];
    for (const id of info.extensionIds) if (await reads.mayBeScheduled(id)) scheduled.push(id);
    await skips.skip(report, marks, { project }, "project-gone", {
      message: `the project folder ${project} is gone; it stays on the scheduled list ` +
        `until a person removes it (sync projects forget ${project})`,
      receipt: true,
      receiptIds: scheduled,
    });
    return -Infinity;
  }
  await skips.unmark(marks, { project });
  const stamps = reads.byProject.stamps.get(project) ?? new Map<string, ScheduleStamp>();
  const approvals = reads.byProject.approvals.get(project);
  const offs = reads.byProject.offs.get(project);
  const ids = info.extensionIds;
  for (const id of ids) {
    let schedule;
    try {
      schedule = (await servingPackage(options.kv, project, id, {
        declaredIds: ids,
        load: reads.load,
        approval: approvals?.get(id) ?? null,
        ref: await reads.ref(id),
      })).manifest.schedule;
    } catch (error) {
      if (await reads.mayBeScheduled(id)) {
        await skips.skip(report, marks, { project, id }, skipReasonOf(error), {
          message: describeError(error).message,
          receipt: true,
        });
      }
      continue;
    }
    await skips.unmark(marks, { project, id });
    if (schedule.length === 0) continue;
    const off = offs?.has(id) ?? false;
    const seen = new Set<string>();
    for (const row of schedule) {
      if (seen.has(row.handler)) continue;
      seen.add(row.handler);
      const stamp = stamps.get(`${id}\0${row.handler}`) ?? null;
      const overdue = stamp ? at - stamp.at - parseEvery(row.every) : Infinity;
      const dueFrom = stamp
        ? stamp.at + parseEvery(row.every) - LOOK_EVERY_MS * DUE_TOLERANCE
        : -Infinity;
      quietUntil = Math.min(quietUntil, dueFrom);
      if (overdue < -LOOK_EVERY_MS * DUE_TOLERANCE) continue;
      const key = { project, id, handler: row.handler };
      if (off) {
        await skips.skip(report, marks, key, "switched-off", {
          message: `the clock of ${id} is switched off in ${project}`,
          receipt: true,
        });
        continue;
      }
      const marked = marks.has(`${id}\0${row.handler}`);
      due.push({
        ...key,
        overdue,
        order: due.length,
        marked,
        declaredIds: info.extensionIds,
        previous: stamp,
      });
    }
  }
  return quietUntil;
}

/**
 * Orders what a look found due: most overdue first, ties in the order found.
 *
 * @param due The handlers found due; sorted in place.
 */
export function mostOverdueFirst(due: DueEntry[]): void {
  due.sort((a, b) => a.overdue === b.overdue ? a.order - b.order : b.overdue > a.overdue ? 1 : -1);
}
