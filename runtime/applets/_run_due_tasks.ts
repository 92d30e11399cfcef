/**
 * One look at the schedule of due runs: each connected device that is not
 * paused and not red runs its tasks whose `nextRunAt` has come and that are
 * not parked, one at a time, and the look answers when the soonest next run
 * is. Private to the applets' folder.
 *
 * @module
 */
import type { Account } from "./account.ts";
import { readDeviceRecord } from "./device_record.ts";
import { accountsPrefix } from "./keys.ts";
import { type AttemptTrigger, readTaskRecord } from "./task_record.ts";
import type { DeviceDeclaration, TaskName } from "./_device_declaration.ts";
import { taskNames } from "./_task_names.ts";

/** What a look runs with. */
export interface RunDueTasksOptions {
  /** The runner's time, in ms. */
  now: () => number;
  /** Finds the device a package declares in a project. */
  deviceOf: (project: string, pkg: string) => Promise<DeviceDeclaration | null>;
  /** True once the runner is stopping: the look starts nothing more. */
  stopping: () => boolean;
  /** Whether a change in the device's folder brought its run forward; it is forgotten once read. */
  takeObserved: (project: string, pkg: string) => boolean;
  /** Runs one attempt of a task and settles it. */
  attempt: (
    project: string,
    pkg: string,
    task: TaskName,
    device: DeviceDeclaration,
    how: { trigger: AttemptTrigger; try: number },
  ) => Promise<unknown>;
}

/**
 * Runs every task that is due now.
 *
 * @param kv The installation's KV.
 * @param options Time, devices, and what runs an attempt.
 * @returns When the soonest next run is, in ms; `Infinity` when none is
 *   planned, null when the look stopped short.
 */
export async function runDueTasks(
  kv: Deno.Kv,
  options: RunDueTasksOptions,
): Promise<number | null> {
  let soonest = Infinity;
  // Read first: the runs below take long, and a listing is not held open across them.
  const connected: Deno.KvKey[] = [];
  for await (const entry of kv.list<Account>({ prefix: accountsPrefix() })) {
    connected.push(entry.key);
  }
  for (const key of connected) {
    if (options.stopping()) return null;
    const [, project, pkg] = key as [string, string, string];
    const record = await readDeviceRecord(kv, project, pkg);
    if (record.paused || record.notice) continue;
    const device = await options.deviceOf(project, pkg).catch(() => null);
    if (!device) continue;
    for (const name of taskNames(device)) {
      const task = await readTaskRecord(kv, project, pkg, name);
      if (!task || task.parkedUntilReview || task.nextRunAt === null) continue;
      if (options.stopping()) return null;
      if (task.nextRunAt > options.now()) {
        soonest = Math.min(soonest, task.nextRunAt);
        continue;
      }
      // The folder's change is taken either way: a first read reads what it brought too.
      const observed = task.failuresInRow === 0 && options.takeObserved(project, pkg);
      const trigger: AttemptTrigger = task.failuresInRow > 0
        ? "retry"
        : task.fresh
        ? "fresh"
        : observed
        ? "observation"
        : "schedule";
      await options.attempt(project, pkg, name, device, { trigger, try: task.failuresInRow + 1 });
      const after = await readTaskRecord(kv, project, pkg, name);
      if (after?.nextRunAt != null) soonest = Math.min(soonest, after.nextRunAt);
      // A device the run turned red runs nothing more now.
      if ((await readDeviceRecord(kv, project, pkg)).notice) break;
    }
  }
  return soonest;
}
