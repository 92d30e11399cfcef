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

/** Prefix of every approval, of every project: what lists them all at once. */
export function approvalsPrefix(): Deno.KvKey {
  return [APPROVAL];
}
