/**
 * Resetting a device: what it read goes (the records of its package's own
 * kinds in the project's memory), and so does its task state (tasks and
 * attempts) and its last read; the account, the consent and a pause stay.
 * The epoch moves on first, so a run going now commits nothing after.
 *
 * @module
 */
import { removePackageRecords } from "../memory/mod.ts";
import { taskAttemptsPrefix, tasksPrefix } from "./keys.ts";
import { updateDeviceRecord } from "./device_record.ts";
import { deleteAll } from "./_delete_all.ts";
import { bumpAccountEpoch } from "../memory/mod.ts";

/** What a reset removed. */
export interface ResetResult {
  /** Records of the package's kinds removed from the project's memory. */
  records: number;
}

/**
 * Resets a device, keeping its account.
 *
 * @param kv The installation's KV.
 * @param memoryKv The project's memory KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export async function resetDevice(
  kv: Deno.Kv,
  memoryKv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<ResetResult> {
  await bumpAccountEpoch(memoryKv, pkg);
  const records = await removePackageRecords(memoryKv, pkg);
  await deleteAll(kv, tasksPrefix(project, pkg));
  await deleteAll(kv, taskAttemptsPrefix(project, pkg));
  await updateDeviceRecord(kv, project, pkg, (record) => ({
    ...record,
    notice: null,
    lastRead: null,
  }));
  return { records };
}
