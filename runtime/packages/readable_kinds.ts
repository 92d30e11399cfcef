/**
 * The record kinds a package may read in a project: its own, and those every
 * other package serving the project publishes. One rule for a handler's
 * call and a screen's reads.
 *
 * @module
 */
import { type ServingEntries, servingPackage } from "./serving.ts";
import { type LoadedPackage, publishedKinds } from "./store.ts";

/**
 * Kinds the project's packages publish, and the calling package's own (it
 * may not be among `declaredIds` yet while its install runs `installed`). A
 * package that cannot serve right now publishes nothing.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param calling The package that reads.
 * @param declaredIds The ids the project lists.
 * @param serving Each listed id's approval and ref, as already read.
 * @returns Every kind it may read, its own first.
 */
export async function readableKinds(
  kv: Deno.Kv,
  project: string,
  calling: LoadedPackage,
  declaredIds: readonly string[],
  serving: Map<string, ServingEntries>,
): Promise<string[]> {
  const kinds: string[] = await publishedKinds(calling);
  for (const id of declaredIds) {
    if (id === calling.manifest.id) continue;
    try {
      const pkg = await servingPackage(kv, project, id, { declaredIds, ...serving.get(id) });
      kinds.push(...await publishedKinds(pkg));
    } catch {
      // A package that cannot serve publishes nothing right now.
    }
  }
  return kinds;
}
