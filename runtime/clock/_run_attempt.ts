/**
 * How the clock runs one due handler: the generation is read, the switch
 * checked again, the attempt stamped before the call starts (the stamp
 * records the attempt, not its success), the handler called with the
 * occasion `clock`, and the outcome recorded. A handler a person is running
 * is taken back and tried at the next look. Private to the clock's folder.
 *
 * @module
 */
import { HandlerBusyError, SyncError } from "../errors.ts";
import { type HandlerCaller, isRefusal } from "../host/mod.ts";
import { readGeneration } from "../memory/mod.ts";
import { type ProjectInfo, projectKey } from "../projects/mod.ts";
import { describeError } from "../internal/describe_error.ts";
import { isSwitchedOff } from "./switch.ts";
import { beginAttempt, clearSkip, endAttempt, takeBackAttempt } from "./stamps.ts";
import type { TickReport } from "./tick_report.ts";
import type { DueEntry } from "./_due_handlers.ts";
import type { TickSkips } from "./_tick_skips.ts";

/** What running a due handler is given by the clock. */
export interface RunAttemptOptions {
  /** The installation's KV: stamps, the switch, remembered projects. */
  kv: Deno.Kv;
  /** What calls the handler. */
  caller: HandlerCaller;
  /** The project's memory KV, where the package's generation is read before a call. */
  projectMemory: (project: string) => Promise<Deno.Kv>;
  /** The clock's time, in ms. */
  now: () => number;
  /** Where the clock's own lines go. */
  log: (line: string) => void;
  /** Where what is passed over is reported. */
  skips: TickSkips;
}

/**
 * Calls one due handler, stamping the attempt before it starts.
 *
 * @param entry The handler, as the look found it due.
 * @param at When the clock looked, in ms: the attempt's stamp.
 * @param report The tick's report, where the run or the skip goes.
 * @param options The installation, the caller, the clock's time and log, and skips.
 */
export async function runAttempt(
  entry: DueEntry,
  at: number,
  report: TickReport,
  options: RunAttemptOptions,
): Promise<void> {
  const { kv, skips } = options;
  const { project, id, handler } = entry;
  // The generation is read before the switch: switching off writes the
  // exception and then bumps the generation, so a switch turned off after
  // this look fences the call off at commit.
  const generation = await readGeneration(await options.projectMemory(project), id);
  // The switch may have been turned off while earlier handlers ran.
  if (await isSwitchedOff(kv, project, id)) {
    await skips.skip(report, new Map(), { project, id, handler }, "switched-off", {
      message: `the clock of ${id} is switched off in ${project}`,
      receipt: true,
    });
    return;
  }
  // Removed from the project since the look: nothing to run.
  const remembered = await kv.get<ProjectInfo>(projectKey(project));
  if (!remembered.value?.extensionIds.includes(id)) return;
  const begun = await beginAttempt(kv, project, id, handler, {
    at,
    startedAt: options.now(),
    previousAt: entry.previous?.at ?? null,
    guard: remembered,
  });
  if (!begun) {
    options.log(
      `[${id}] ${handler} in ${project} was already attempted by another clock; passed over`,
    );
    return;
  }
  if (entry.marked) await clearSkip(kv, { project, id, handler });
  const overdueMs = entry.overdue === Infinity ? null : Math.max(0, entry.overdue);
  try {
    await options.caller.callHandler(project, id, handler, {
      occasion: { kind: "clock" },
      source: { kind: "clock" },
      generation,
      declaredIds: entry.declaredIds,
      noReceiptWhenBusy: true,
    });
    await endAttempt(kv, project, id, handler, begun, { outcome: "ok", endedAt: options.now() });
    report.ran.push({ project, packageId: id, handler, outcome: "ok", overdueMs });
  } catch (error) {
    const shown = describeError(error);
    if (error instanceof HandlerBusyError) {
      // A person's call of the same handler is running: this attempt never
      // started, so it must not make the handler wait a whole interval.
      await takeBackAttempt(kv, project, id, handler, begun, entry.previous);
      const message = `${handler} is running already (called by a person or another ` +
        `package); the clock tries again at its next look`;
      options.log(`[${id}] ${message} (${project})`);
      await skips.receipt(project, id, handler, "busy", message);
      report.skipped.push({ project, packageId: id, handler, reason: "busy", message });
      return;
    }
    await endAttempt(kv, project, id, handler, begun, {
      outcome: "failed",
      endedAt: options.now(),
      error: shown,
      counts: !notTheHandlersFault(error),
    });
    // Reported once per attempt, and the stamp keeps it quiet until its interval.
    options.log(
      `[${id}] ${handler} failed on the clock in ${project}: ${shown.message}`,
    );
    report.ran.push({
      project,
      packageId: id,
      handler,
      outcome: "failed",
      error: shown,
      overdueMs,
    });
  }
}

/**
 * Failures that say nothing about the package: a person fenced the call off
 * (switched the clock off, updated or removed the package, took back its
 * approval) between the look and the call, or was running the same handler,
 * or ran it so often the rate limit refused the clock.
 */
function notTheHandlersFault(error: unknown): boolean {
  return error instanceof SyncError && isRefusal(error.name);
}
