/**
 * Handlers failing again and again: which of a package's handlers ended
 * their last {@linkcode FAILING_AFTER} counted attempts in failure, read
 * from each handler's own run of failures (`runtime/host/handler_runs.ts`,
 * written with every receipt), so that a handler failing on every call is
 * not hidden by a sibling that works, however many receipts the sibling
 * writes. The lamp makes each one red (`lamp.ts`).
 *
 * @module
 */
import { FAILING_AFTER, type HandlerRun } from "../host/mod.ts";
import type { Receipt } from "../types.ts";

export { FAILING_AFTER };

/** A handler whose last {@linkcode FAILING_AFTER} counted attempts failed. */
export interface FailingHandler {
  /** The handler's name, such as `issues.poll`. */
  handler: string;
  /** Its newest failed attempt's receipt: its occasion, when it ended, its error. */
  last: Receipt;
}

/** Options for {@linkcode failingHandlers}. */
export interface FailingHandlersOptions {
  /**
   * The package's declared handlers, when its manifest could be read: a
   * handler it no longer declares has nothing left to fix.
   */
  declared: readonly string[] | null;
  /**
   * When the project approved what it has now (ISO 8601): a failure from
   * before it (an earlier install, since removed) is not this
   * installation's to fix, and does not count.
   */
  since: string;
}

/**
 * The failing handlers among a package's runs of failures.
 *
 * @param runs Its handlers' runs of failures, by handler name (`readHandlerRuns`).
 * @param options Its declared handlers, and since when failures count.
 * @returns The failing handlers, in name order.
 */
export function failingHandlers(
  runs: ReadonlyMap<string, HandlerRun>,
  options: FailingHandlersOptions,
): FailingHandler[] {
  return [...runs.entries()]
    .filter(([handler, run]) =>
      (options.declared?.includes(handler) ?? true) &&
      run.failedAt.filter((at) => at >= options.since).length >= FAILING_AFTER
    )
    .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([handler, run]) => ({ handler, last: run.last }));
}
