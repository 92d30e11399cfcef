/**
 * The program a screen may start: one its package declares under
 * `host.processes`, in the version that serves the project now, which the
 * project approved with that program named.
 *
 * @module
 */
import { NotFoundError, PermissionDeniedError } from "../errors.ts";
import { type HostProcess, servingPackage } from "../packages/mod.ts";
import { readDeclaredIds } from "../projects/mod.ts";

/**
 * The `host.processes` entry `processId` of the package that serves
 * `packageId` in `project`. Read at every start, so that a removal, an
 * update waiting for approval or an approval withdrawn counts at once.
 *
 * @param kv The installation's KV: approvals and refs.
 * @param project The project's resolved folder.
 * @param packageId The package id.
 * @param processId The program's id under `host.processes`.
 * @throws {NotFoundError} when the package is not installed in the project, or declares no such program.
 * @throws {ApprovalRequiredError} when nothing approved serves the package in the project.
 * @throws {PermissionDeniedError} when the serving version does not ask for `host.processes`.
 */
export async function readDeclaredProcess(
  kv: Deno.Kv,
  project: string,
  packageId: string,
  processId: string,
): Promise<HostProcess> {
  const declaredIds = await readDeclaredIds(project);
  const pkg = await servingPackage(kv, project, packageId, { declaredIds });
  const { manifest } = pkg;
  const declared = manifest.host?.processes ?? [];
  if (!manifest.permissions.includes("host.processes") || declared.length === 0) {
    throw new PermissionDeniedError(
      `Cannot start ${JSON.stringify(processId)} for ${packageId}@${manifest.version}: ` +
        `its manifest declares no program under host.processes (with the host.processes ` +
        `permission), so its screen may start none`,
    );
  }
  const found = declared.find((process) => process.id === processId);
  if (!found) {
    throw new NotFoundError(
      `Cannot start ${JSON.stringify(processId)} for ${packageId}@${manifest.version}: ` +
        `its manifest declares no such program under host.processes (it declares ` +
        `${declared.map((process) => process.id).join(", ")})`,
    );
  }
  return found;
}
