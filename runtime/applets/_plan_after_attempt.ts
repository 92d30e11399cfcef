/**
 * When a task runs next after an attempt: its `every` from now (no catch-up
 * after sleep), a retry after the backoff for a transient failure (30 s,
 * 2 min, 10 min, then its next due run), or never until a person reviews an
 * unknown outcome. Private to the applets' folder.
 *
 * @module
 */
import { APPLET_LIMITS } from "../limits.ts";
import { parseEvery } from "../packages/mod.ts";
import type { TaskRecord } from "./task_record.ts";
import type { DeviceDeclaration, TaskName } from "./_device_declaration.ts";

/** How an attempt ended, as the plan reads it. */
export type PlannedOutcome = "ok" | "failed" | "transient" | "unknown";

/** Options for {@linkcode planAfterAttempt}. */
export interface PlanAfterAttemptOptions {
  /** Now, in ms: the next run is planned from it. */
  at: number;
  /** The attempt that ended; the record's last one stays when absent. */
  attemptId?: string;
}

/**
 * The task record after an attempt with this outcome.
 *
 * @param record The task as it is.
 * @param device The device that declares it.
 * @param task The task's name.
 * @param outcome How the attempt ended.
 * @param options Now, and the attempt.
 */
export function planAfterAttempt(
  record: TaskRecord,
  device: DeviceDeclaration,
  task: TaskName,
  outcome: PlannedOutcome,
  options: PlanAfterAttemptOptions,
): TaskRecord {
  const { at } = options;
  const every = device.modes.includes("scheduled") ? device.tasks?.[task]?.every : undefined;
  const nextDue = every ? at + parseEvery(every) : null;
  const backoff = APPLET_LIMITS.retryBackoffMs;
  const { fresh: _first, ...kept } = record;
  const next: TaskRecord = { ...kept, lastAttempt: options.attemptId ?? record.lastAttempt };
  if (outcome === "transient") {
    const failures = record.failuresInRow + 1;
    if (failures <= backoff.length) {
      return { ...next, failuresInRow: failures, nextRunAt: at + backoff[failures - 1] };
    }
    return { ...next, failuresInRow: 0, nextRunAt: nextDue };
  }
  if (outcome === "unknown") {
    return { ...next, failuresInRow: 0, nextRunAt: null, parkedUntilReview: true };
  }
  return { ...next, failuresInRow: 0, nextRunAt: nextDue };
}
