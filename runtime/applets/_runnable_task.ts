/**
 * Whether a person or an agent may run a task now: the device declares it,
 * runs on demand, is not paused, and the task does not wait for a review.
 * Private to the applets' folder.
 *
 * @module
 */
import { ConflictError, NotFoundError } from "../errors.ts";
import { readDeviceRecord } from "./device_record.ts";
import { readTaskRecord } from "./task_record.ts";
import type { DeviceDeclaration, TaskName } from "./_device_declaration.ts";
import { taskNames } from "./_task_names.ts";

/**
 * The task, once it may run on demand now.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param task The task's name as asked.
 * @param device The device that would run it.
 * @throws {NotFoundError} when the device has no such task.
 * @throws {ConflictError} when the device does not run on demand, is paused, or
 *   the task waits for a person's review.
 */
export async function runnableTask(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  task: string,
  device: DeviceDeclaration,
): Promise<TaskName> {
  const declared = (device.tasks ?? {})[task as TaskName];
  if (!declared) {
    throw new NotFoundError(
      `${device.name} (${pkg}) has no task ${JSON.stringify(task)}; ` +
        `its tasks: ${taskNames(device).join(", ") || "none"}`,
    );
  }
  if (!device.modes.includes("on-demand")) {
    throw new ConflictError(
      `Cannot run ${pkg}'s ${task} now: ${device.name} does not run on demand ` +
        `(its modes: ${device.modes.join(", ")})`,
    );
  }
  const record = await readDeviceRecord(kv, project, pkg);
  if (record.paused) {
    throw new ConflictError(`Cannot run ${pkg}'s ${task}: it is paused; resume it first`);
  }
  const stored = await readTaskRecord(kv, project, pkg, task);
  if (stored?.parkedUntilReview) {
    throw new ConflictError(
      `Cannot run ${pkg}'s ${task}: a run's outcome is unknown and waits for a person; ` +
        `review it first`,
    );
  }
  return task as TaskName;
}
