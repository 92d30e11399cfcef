/**
 * What an attempt's end means for its task and its device: `ok` keeps its
 * coverage as the device's `lastRead` and clears the notice; a transient
 * failure plans a retry, the lamp as it was; any other failure turns the
 * device red with the notice that says what to do; `fenced` and `cancelled`
 * leave nothing. Private to the applets' folder.
 *
 * @module
 */
import {
  allowAccessNotice,
  type DeviceRecord,
  reviewRunNotice,
  signInNotice,
  updateDeviceRecord,
} from "./device_record.ts";
import { updateTaskRecord } from "./task_record.ts";
import type { DeviceDeclaration, TaskName } from "./_device_declaration.ts";
import { planAfterAttempt } from "./_plan_after_attempt.ts";
import type { AttemptEnd } from "./_run_task_attempt.ts";

/** Options for {@linkcode settleAttempt}. */
export interface SettleAttemptOptions {
  /** The runner's time, in ms. */
  now: () => number;
  /** Where a failure's line goes. */
  log: (line: string) => void;
}

/**
 * Settles an attempt's end on its task and its device.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param task The task's name.
 * @param device The device that declares it.
 * @param end How the attempt ended.
 * @param options Time and log.
 */
export async function settleAttempt(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  task: TaskName,
  device: DeviceDeclaration,
  end: AttemptEnd,
  options: SettleAttemptOptions,
): Promise<void> {
  const { failure, attempt } = end;
  // An obsolete run leaves nothing: not its coverage, not its plan.
  if (failure?.outcome === "fenced" || failure?.outcome === "cancelled") return;
  if (!failure) {
    await updateDeviceRecord(kv, project, pkg, (record) => ({
      ...record,
      notice: null,
      lastRead: end.coverage ? { at: attempt.endedAt!, coverage: end.coverage } : record.lastRead,
    }));
  } else {
    options.log(`[${pkg}] ${task} in ${project}: ${failure.outcome}: ${failure.message}`);
    if (failure.outcome !== "transient") {
      const notice = failure.notice === "allow-access"
        ? allowAccessNotice(pkg, failure.message)
        : failure.notice === "sign-in"
        ? signInNotice(pkg, failure.message)
        : reviewRunNotice(pkg, task, failure.message);
      await updateDeviceRecord(kv, project, pkg, (record): DeviceRecord => ({ ...record, notice }));
    }
  }
  const at = options.now();
  const outcome = failure ? failure.outcome : "ok";
  await updateTaskRecord(
    kv,
    project,
    pkg,
    task,
    (record) => planAfterAttempt(record, device, task, outcome, { at, attemptId: attempt.id }),
    at,
  );
}
