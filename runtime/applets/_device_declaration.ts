/**
 * The device a package's manifest declares, read the way this folder needs
 * it. Private to the applets' folder.
 *
 * @module
 */
import { type DeviceDeclaration, type Manifest, servingPackage } from "../packages/mod.ts";
import { readDeclaredIds } from "../projects/mod.ts";

export type { DeviceDeclaration, DeviceMode, TaskDeclaration, TaskName } from "../packages/mod.ts";

/**
 * The device a manifest declares, or null when it declares none.
 *
 * @param manifest A parsed manifest.
 */
export function deviceOf(manifest: Pick<Manifest, "device">): DeviceDeclaration | null {
  return manifest.device ?? null;
}

/**
 * The device a package declares in a project, as the manifest of the
 * version serving there says; null when the package is not declared there
 * or declares no device.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param declared The ids the project declares, when the caller read them already.
 */
export async function servingDevice(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  declared?: readonly string[],
): Promise<DeviceDeclaration | null> {
  const declaredIds = declared ?? await readDeclaredIds(project);
  if (!declaredIds.includes(pkg)) return null;
  const loaded = await servingPackage(kv, project, pkg, { declaredIds });
  return deviceOf(loaded.manifest);
}
