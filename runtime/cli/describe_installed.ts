/**
 * One entry of `sync list`: an installed package's version, source, approval
 * state here, and its permissions with what they mean.
 *
 * @module
 */
import type { Host } from "../host/host.ts";
import { readApproval, widenedPermissions } from "../packages/approval.ts";
import { describePermission } from "../packages/permission_text.ts";
import { loadPackage, readPackageRef } from "../packages/store.ts";

/**
 * Describes a package installed in a project, for `sync list`: what serves
 * there (the approved version, or nothing while a widened one awaits
 * approval), or why it cannot load.
 *
 * @param host The host over the installation.
 * @param project The project's resolved path.
 * @param id The package id the project declares.
 * @returns The entry: a first line, then one indented line per permission.
 */
export async function describeInstalled(host: Host, project: string, id: string): Promise<string> {
  const approval = await readApproval(host.kv, project, id);
  const ref = await readPackageRef(host.kv, id);
  if (!ref) return `${id}  not on this machine: install it here to use it`;
  try {
    const pkg = await loadPackage(ref);
    const { version, name, permissions } = pkg.manifest;
    let state = "approved";
    if (!approval) state = "not approved here";
    else {
      const widened = widenedPermissions(approval.permissions, permissions);
      if (widened.length) {
        // A folder edited in place has no approved artefact left to fall back on.
        const fallback = approval.ref.dir !== ref.dir
          ? `${approval.version} serves`
          : "nothing serves";
        state = `${version} awaits approval of ${widened.join(", ")}; ${fallback}`;
      }
    }
    const perms = permissions.map((p) => `\n    ${p} — ${describePermission(p)}`).join("");
    return `${id}@${version}  ${name}  [${ref.source}]  ${state}${perms}`;
  } catch (error) {
    return `${id}  cannot load: ${(error as Error).message}`;
  }
}
