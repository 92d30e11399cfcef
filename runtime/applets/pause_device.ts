/**
 * Pausing a device: what it read stays, and nothing of it runs until a
 * person resumes it. The task runner calls a run going off besides
 * (`TaskRunner.pause`).
 *
 * @module
 */
import { type DeviceRecord, updateDeviceRecord } from "./device_record.ts";

/**
 * Marks a device paused.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @returns The device's state now.
 */
export async function pauseDevice(
  kv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<DeviceRecord> {
  return await updateDeviceRecord(kv, project, pkg, (record) => ({ ...record, paused: true }));
}

/**
 * Marks a device no longer paused: what is due runs.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @returns The device's state now.
 */
export async function resumeDevice(
  kv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<DeviceRecord> {
  return await updateDeviceRecord(kv, project, pkg, (record) => ({ ...record, paused: false }));
}
