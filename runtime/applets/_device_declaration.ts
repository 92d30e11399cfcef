/**
 * The device a package's manifest declares, read the way this folder needs
 * it. Private to the applets' folder.
 *
 * @module
 */
import type { DeviceDeclaration, Manifest } from "../packages/mod.ts";

export type { DeviceDeclaration, DeviceMode, TaskDeclaration, TaskName } from "../packages/mod.ts";

/**
 * The device a manifest declares, or null when it declares none.
 *
 * @param manifest A parsed manifest.
 */
export function deviceOf(manifest: Pick<Manifest, "device">): DeviceDeclaration | null {
  return manifest.device ?? null;
}
