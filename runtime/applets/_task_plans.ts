/**
 * The plans a person's decision or a folder's change makes for a device's
 * tasks, besides an attempt's end (`_plan_after_attempt.ts`): fresh on
 * connect and reset, unparked on review, brought forward on observation.
 * Private to the applets' folder.
 *
 * @module
 */
import { readTaskRecord, updateTaskRecord } from "./task_record.ts";
import type { DeviceDeclaration } from "./_device_declaration.ts";
import { readsByItself, taskNames } from "./_task_names.ts";

/** Options for the plans. */
export interface TaskPlanOptions {
  /** The runner's time, in ms. */
  now: () => number;
}

/**
 * A device's tasks become due at once when it reads by itself; their
 * retries are forgotten, a parked task stays parked.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param device The device.
 * @param options Its time.
 */
export async function planFresh(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  device: DeviceDeclaration,
  options: TaskPlanOptions,
): Promise<void> {
  const at = options.now();
  const auto = readsByItself(device);
  for (const name of taskNames(device)) {
    await updateTaskRecord(kv, project, pkg, name, (task) => ({
      ...task,
      failuresInRow: 0,
      nextRunAt: task.parkedUntilReview ? null : auto ? at : null,
      fresh: !task.parkedUntilReview && auto,
    }), at);
  }
}

/**
 * A person reviewed: the parked tasks may run again, due at once when the
 * device reads by itself.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param device The device.
 * @param options Its time.
 */
export async function planReviewed(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  device: DeviceDeclaration,
  options: TaskPlanOptions,
): Promise<void> {
  const auto = readsByItself(device);
  for (const name of taskNames(device)) {
    const stored = await readTaskRecord(kv, project, pkg, name);
    if (!stored?.parkedUntilReview) continue;
    await updateTaskRecord(kv, project, pkg, name, (task) => ({
      ...task,
      parkedUntilReview: false,
      failuresInRow: 0,
      nextRunAt: auto ? options.now() : null,
    }), options.now());
  }
}

/**
 * The device's folder changed: its tasks are due now, unless parked or
 * waiting for a retry.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param device The device.
 * @param options Its time.
 */
export async function planObserved(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  device: DeviceDeclaration,
  options: TaskPlanOptions,
): Promise<void> {
  const at = options.now();
  for (const name of taskNames(device)) {
    await updateTaskRecord(kv, project, pkg, name, (task) => ({
      ...task,
      nextRunAt: task.parkedUntilReview || task.failuresInRow > 0
        ? task.nextRunAt
        : Math.min(task.nextRunAt ?? at, at),
    }), at);
  }
}
