/**
 * Approvals: a person's consent, per project, to a package's permissions.
 * They live in the installation, never in the repository, so a cloned
 * repository cannot approve itself.
 *
 * @module
 */
import { approvalKey } from "./keys.ts";
import type { PackageRef } from "./store.ts";

/** What a person approved for one package in one project. */
export interface Approval {
  id: string;
  version: string;
  /** The artefact approved; it keeps serving while a newer one waits for approval. */
  ref: PackageRef;
  permissions: string[];
  approvedAt: string;
}

/** Reads a project's approval of a package, or null. */
export async function readApproval(
  kv: Deno.Kv,
  project: string,
  id: string,
): Promise<Approval | null> {
  return (await kv.get<Approval>(approvalKey(project, id))).value;
}

/** Records a person's approval. */
export async function writeApproval(
  kv: Deno.Kv,
  project: string,
  approval: Approval,
): Promise<void> {
  await kv.set(approvalKey(project, approval.id), approval);
}

/** Deletes a project's approval of a package. */
export async function deleteApproval(kv: Deno.Kv, project: string, id: string): Promise<void> {
  await kv.delete(approvalKey(project, id));
}

/**
 * The permissions `requested` asks for beyond `approved` — what would widen
 * the consent. Empty when nothing new is asked.
 */
export function widenedPermissions(
  approved: readonly string[],
  requested: readonly string[],
): string[] {
  const had = new Set(approved);
  return requested.filter((permission) => !had.has(permission));
}
