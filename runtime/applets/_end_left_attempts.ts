/**
 * Restoring at start: the attempts a stopped process left without an
 * outcome are ended `cancelled`. Private to the applets' folder.
 *
 * @module
 */
import { allTaskAttemptsPrefix } from "./keys.ts";
import type { TaskAttempt } from "./task_record.ts";

/** Options for {@linkcode endLeftAttempts}. */
export interface EndLeftAttemptsOptions {
  /** The runner's time, in ms. */
  now: () => number;
}

/**
 * Ends the attempts a stopped process left without an outcome.
 *
 * @param kv The installation's KV.
 * @param options Its time.
 */
export async function endLeftAttempts(kv: Deno.Kv, options: EndLeftAttemptsOptions): Promise<void> {
  for await (const entry of kv.list<TaskAttempt>({ prefix: allTaskAttemptsPrefix() })) {
    if (entry.value.outcome !== undefined) continue;
    await kv.atomic().check(entry).set(
      entry.key,
      {
        ...entry.value,
        endedAt: options.now(),
        outcome: "cancelled",
        error: "Sync stopped while this run was going; what its steps committed stays, with " +
          "their receipts, and the step that was running kept nothing unless it had returned",
      } satisfies TaskAttempt,
    ).commit();
  }
}
