/**
 * Handlers failing again and again: which of a package's handlers ended
 * their last {@linkcode FAILING_AFTER} counted attempts in failure, read
 * from its receipts one handler at a time, so that a handler failing on
 * every call is not hidden by a sibling that works. The lamp makes each
 * one red (`lamp.ts`).
 *
 * What counts: an attempt that ended `failed` on the handler's own account —
 * it threw, ran past its time, memory or stack, or its writes could not be
 * committed. A call refused before or around it is nobody's failure to fix
 * in the handler and neither adds to the row nor ends it: superseded because
 * a person switched the clock off or updated the package, already running,
 * over its rate, not approved, not found. Nor do attempts the clock passed
 * over, attempts a stopped process interrupted, or lifecycle calls, whose
 * failure has its own notice. One `ok` ends the row.
 *
 * @module
 */
import {
  ApprovalRequiredError,
  HandlerBusyError,
  NotFoundError,
  RateLimitedError,
  SupersededError,
} from "../errors.ts";
import type { Receipt } from "../types.ts";

/**
 * Failures in a row, of one handler, after which its package's lamp turns
 * red naming it. Three: one failure is a bad moment, two may be the same
 * outage, three on a handler that is not retried for it (no retry policy:
 * each was a separate occasion) is something a person has to look at.
 */
export const FAILING_AFTER = 3;

/** Errors a call is refused with, which say nothing about the handler's code. */
const REFUSALS: ReadonlySet<string> = new Set([
  SupersededError.name,
  HandlerBusyError.name,
  RateLimitedError.name,
  ApprovalRequiredError.name,
  NotFoundError.name,
]);

/** A handler whose last {@linkcode FAILING_AFTER} counted attempts failed. */
export interface FailingHandler {
  /** The handler's name, such as `issues.poll`. */
  handler: string;
  /** Its newest failed attempt's receipt: its occasion, when it ended, its error. */
  last: Receipt;
}

/**
 * Whether a receipt is one of a handler's counted attempts: a failure, a
 * success, or neither (see the module's documentation).
 *
 * @param receipt A receipt of the package.
 * @returns `"failed"`, `"ok"`, or null for an attempt that does not count.
 */
export function countedOutcome(receipt: Receipt): "failed" | "ok" | null {
  if (receipt.handler === "" || receipt.occasion.kind === "lifecycle") return null;
  if (receipt.outcome === "ok") return "ok";
  if (receipt.outcome !== "failed") return null;
  return receipt.error && REFUSALS.has(receipt.error.name) ? null : "failed";
}

/**
 * Follows a package's receipts, newest first, handler by handler, until
 * each is decided: failing ({@linkcode FAILING_AFTER} counted failures
 * before any success) or not (a success first).
 */
export class FailureRows {
  /** Per handler: its counted failures so far, newest first, and whether it is decided. */
  #rows = new Map<string, { failures: Receipt[]; decided: boolean }>();

  /**
   * Takes the next older receipt.
   *
   * @param receipt A receipt of the package, older than every one taken before.
   */
  see(receipt: Receipt): void {
    const outcome = countedOutcome(receipt);
    if (outcome === null) return;
    const row = this.#rows.get(receipt.handler) ?? { failures: [], decided: false };
    this.#rows.set(receipt.handler, row);
    if (row.decided) return;
    if (outcome === "ok") row.decided = true;
    else {
      row.failures.push(receipt);
      if (row.failures.length >= FAILING_AFTER) row.decided = true;
    }
  }

  /**
   * True once every one of `handlers` is decided, so older receipts change
   * nothing; false while any is not, or when the handlers are not known.
   *
   * @param handlers The package's declared handlers, when its manifest could be read.
   */
  decided(handlers: readonly string[] | null): boolean {
    return handlers !== null && handlers.every((name) => this.#rows.get(name)?.decided);
  }

  /** The failing handlers, in name order. */
  failing(): FailingHandler[] {
    return [...this.#rows.entries()]
      .filter(([, row]) => row.failures.length >= FAILING_AFTER)
      .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
      .map(([handler, row]) => ({ handler, last: row.failures[0] }));
  }
}
