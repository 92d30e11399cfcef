/**
 * Handler runs: per (project, package, handler), the handler's counted
 * failures in a row since its last success, kept beside its receipts and
 * written in the same atomic write as each receipt that changes it. The lamp
 * reads these rows (`runtime/extensions/failing_handlers.ts`), not the
 * receipts: a handler failing once a day beside a sibling called every minute
 * would see its failures trimmed from the package's kept receipts long before
 * it failed three times.
 *
 * What counts: an attempt that ended `failed` on the handler's own account —
 * it threw, ran past its time, memory or stack, or its writes could not be
 * committed. A call refused before or around it is nobody's failure to fix
 * in the handler and neither adds to the run nor ends it: superseded because
 * a person switched the clock off or updated the package, already running,
 * over its rate, not approved, not found. Nor do attempts the clock passed
 * over, attempts a stopped process interrupted, or lifecycle calls, whose
 * failure has its own notice. One `ok` ends the run: its row is deleted.
 *
 * A row exists only while its handler's newest counted attempt failed, holds
 * at most {@linkcode FAILING_AFTER} times and one bounded receipt, and is
 * deleted when the package is removed from the project
 * ({@linkcode forgetHandlerRuns}).
 *
 * @module
 */
import {
  ApprovalRequiredError,
  FencedError,
  HandlerBusyError,
  NotFoundError,
  RateLimitedError,
  SupersededError,
} from "../errors.ts";
import type { Receipt } from "../types.ts";
import { handlerRunKey, handlerRunsPrefix } from "./keys.ts";

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
  FencedError.name,
  HandlerBusyError.name,
  RateLimitedError.name,
  ApprovalRequiredError.name,
  NotFoundError.name,
]);

/**
 * Whether an error of this name is a refusal of the call — fenced off by a
 * person, already running, over its rate, not approved, not found — which
 * says nothing about the handler's code. The clock's rule on what needs
 * review and the lamp's on failing handlers both ask this.
 *
 * @param name An error's name, such as `RateLimitedError`.
 */
export function isRefusal(name: string | undefined): boolean {
  return name !== undefined && REFUSALS.has(name);
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
  return isRefusal(receipt.error?.name) ? null : "failed";
}

/** A handler's counted failures in a row since its last success, as stored. */
export interface HandlerRun {
  /**
   * When each of its newest counted failures started (ISO 8601), newest
   * first, at most {@linkcode FAILING_AFTER}: enough to tell whether the
   * run is long enough and whether all of it is since a given moment.
   */
  failedAt: string[];
  /** Its newest failed attempt's receipt, as stored: its occasion, when it ended, its error. */
  last: Receipt;
}

/**
 * Adds, to the atomic write of a receipt, the change the receipt makes to its
 * handler's run: a counted failure is added to the row, read here and
 * checked in the write (an `ok` written meanwhile fails the write, which is
 * then made again); a success deletes the row, with no read; anything else
 * leaves it.
 *
 * @param kv The installation's KV, to read the row.
 * @param op The atomic write that writes the receipt.
 * @param receipt The receipt as stored (bounded).
 */
export async function addHandlerRun(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  receipt: Receipt,
): Promise<void> {
  const outcome = countedOutcome(receipt);
  if (outcome === null) return;
  const key = handlerRunKey(receipt.project, receipt.packageId, receipt.handler);
  if (outcome === "ok") {
    op.delete(key);
    return;
  }
  const row = await kv.get<HandlerRun>(key);
  const failedAt = [receipt.startedAt, ...row.value?.failedAt ?? []].slice(0, FAILING_AFTER);
  op.check(row).set(key, { failedAt, last: receipt } satisfies HandlerRun);
}

/**
 * The runs of failures of a package's handlers in a project: those whose
 * newest counted attempt failed, by handler name.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param packageId The package.
 */
export async function readHandlerRuns(
  kv: Deno.Kv,
  project: string,
  packageId: string,
): Promise<Map<string, HandlerRun>> {
  const runs = new Map<string, HandlerRun>();
  for await (
    const entry of kv.list<HandlerRun>({ prefix: handlerRunsPrefix(project, packageId) })
  ) {
    runs.set(entry.key[3] as string, entry.value);
  }
  return runs;
}

/**
 * Deletes the runs of failures of a package's handlers in a project, once it
 * is removed from it: installed again, it starts with none.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param packageId The package.
 */
export async function forgetHandlerRuns(
  kv: Deno.Kv,
  project: string,
  packageId: string,
): Promise<void> {
  for await (const entry of kv.list({ prefix: handlerRunsPrefix(project, packageId) })) {
    await kv.delete(entry.key);
  }
}
