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

/**
 * Key written with every change to what the installation remembers of a
 * project: its versionstamp moves with each such write, so one read tells a
 * reader that keeps them in memory (the clock) whether anything changed since.
 */
export function projectsChangedKey(): Deno.KvKey {
  return ["projects_changed"];
}

/** Prefix of every remembered project: what lists them all. */
export function projectsPrefix(): Deno.KvKey {
  return [PROJECT];
}
