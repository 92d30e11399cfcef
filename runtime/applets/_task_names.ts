/**
 * What a device's declaration says about its tasks: their names, and whether
 * it reads by itself. Private to the applets' folder.
 *
 * @module
 */
import type { DeviceDeclaration, TaskName } from "./_device_declaration.ts";

/**
 * The task names a device declares.
 *
 * @param device The device.
 */
export function taskNames(device: DeviceDeclaration): TaskName[] {
  return (Object.keys(device.tasks ?? {}) as TaskName[]).filter((name) => device.tasks?.[name]);
}

/**
 * Whether the device reads without being asked (scheduled or observation).
 *
 * @param device The device.
 */
export function readsByItself(device: DeviceDeclaration): boolean {
  return device.modes.includes("scheduled") || device.modes.includes("observation");
}
