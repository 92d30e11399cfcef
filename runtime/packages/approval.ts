/**
 * Approvals: a person's consent, per project, to a package's permissions.
 * They live in the installation, never in the repository, so a cloned
 * repository cannot approve itself.
 *
 * @module
 */
import { approvalKey, packagesChangedKey } from "./keys.ts";
import type { PackageRef } from "./store.ts";

/** What a person approved for one package in one project. */
export interface Approval {
  /** The package id. */
  id: string;
  /** The version approved. */
  version: string;
  /** The artefact approved; it keeps serving while a newer one waits for approval. */
  ref: PackageRef;
  /** The permissions the person consented to, as the manifest spelled them. */
  permissions: string[];
  /** When the person approved, as an ISO 8601 time. */
  approvedAt: string;
}

/**
 * Reads a project's approval of a package.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param id The package id.
 * @returns The approval, or null when the project has not approved the package.
 */
export async function readApproval(
  kv: Deno.Kv,
  project: string,
  id: string,
): Promise<Approval | null> {
  return (await kv.get<Approval>(approvalKey(project, id))).value;
}

/**
 * Records a person's approval, replacing the project's earlier one of the same package.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param approval What the person approved.
 */
export async function writeApproval(
  kv: Deno.Kv,
  project: string,
  approval: Approval,
): Promise<void> {
  await kv.atomic()
    .set(approvalKey(project, approval.id), approval)
    .set(packagesChangedKey(), true)
    .commit();
}

/**
 * Deletes a project's approval of a package; nothing happens when there is none.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param id The package id.
 */
export async function deleteApproval(kv: Deno.Kv, project: string, id: string): Promise<void> {
  await kv.atomic().delete(approvalKey(project, id)).set(packagesChangedKey(), true).commit();
}

/**
 * The permissions `requested` asks for beyond `approved` — what would widen
 * the consent. Empty when nothing new is asked.
 *
 * @param approved The permissions a person approved.
 * @param requested The permissions a manifest asks for.
 * @returns The requested permissions not approved, in the order requested.
 * @example
 * ```ts
 * widenedPermissions(["background"], ["background", "net:api.example.com"]);
 * // ["net:api.example.com"]
 * ```
 */
export function widenedPermissions(
  approved: readonly string[],
  requested: readonly string[],
): string[] {
  const had = new Set(approved);
  return requested.filter((permission) => !had.has(permission));
}
