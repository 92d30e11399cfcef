/**
 * Every Deno KV key the packages domain writes in the installation: which
 * artefact serves an id, and each project's approval of a package. Keys are
 * built here and nowhere else, so their shapes — which data already stored
 * must keep matching — can be read in one place.
 *
 * @module
 */

const PACKAGE_REF = "package_ref";
const APPROVAL = "approval";

/**
 * Key of the ref that says which artefact serves a package id on this machine.
 *
 * @param id The package id.
 */
export function packageRefKey(id: string): Deno.KvKey {
  return [PACKAGE_REF, id];
}

/**
 * Key of a project's approval of a package.
 *
 * @param project The project's resolved path.
 * @param id The package id.
 */
export function approvalKey(project: string, id: string): Deno.KvKey {
  return [APPROVAL, project, id];
}

/**
 * Key written with every change to a ref or an approval, whatever it holds:
 * its versionstamp moves with each such write, so one read tells a reader
 * that keeps them in memory (the clock) whether anything changed since.
 */
export function packagesChangedKey(): Deno.KvKey {
  return ["packages_changed"];
}

/**
 * Prefix of approvals: of every project, what lists them all at once, or of one.
 *
 * @param project The project's resolved path; omitted for every project.
 */
export function approvalsPrefix(project?: string): Deno.KvKey {
  return project === undefined ? [APPROVAL] : [APPROVAL, project];
}
