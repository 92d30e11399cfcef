/**
 * Every Deno KV key the projects domain writes in the installation: the
 * projects it remembers. Keys are built here and nowhere else, so their
 * shapes — which data already stored must keep matching — can be read in one
 * place.
 *
 * @module
 */

const PROJECT = "project";

/**
 * Key of a remembered project.
 *
 * @param path The project's resolved path.
 */
export function projectKey(path: string): Deno.KvKey {
  return [PROJECT, path];
}

/** Prefix of every remembered project: what lists them all. */
export function projectsPrefix(): Deno.KvKey {
  return [PROJECT];
}
