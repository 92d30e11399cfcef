/**
 * Every Deno KV key the work domain writes in the installation: work orders,
 * and the index of them by project and extension. Keys are built here and
 * nowhere else, so their shapes — which data already stored must keep
 * matching — can be read in one place.
 *
 * @module
 */

/**
 * Key of a work order.
 *
 * @param key The order's key, as `work.order()` answered it.
 */
export function workOrderKey(key: string): Deno.KvKey {
  return ["work_order", key];
}

/**
 * Key of a work order in its project and extension's index.
 *
 * @param project The project's resolved path.
 * @param extensionId The extension that ordered the work.
 * @param key The order's key.
 */
export function workOrderIndexKey(project: string, extensionId: string, key: string): Deno.KvKey {
  return ["work_by_extension", project, extensionId, key];
}
