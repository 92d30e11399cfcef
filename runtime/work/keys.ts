/**
 * Every Deno KV key the work domain writes. Work orders live in the memory of
 * the project they are for (`<project>/.sync/memory.kv`), in its outbox: a
 * call's orders are written in the same atomic commit as its records, and
 * whoever performs the work reads them from there. Keys are built here and
 * nowhere else, so their shapes — which data already stored must keep
 * matching — can be read in one place.
 *
 * @module
 */

const WORK_ORDER = "work_order";

/**
 * Key of a work order in its project's outbox (project memory).
 *
 * @param key The order's key, as `work.order()` answered it; keys sort by when they were made.
 */
export function workOrderKey(key: string): Deno.KvKey {
  return [WORK_ORDER, key];
}

/** Prefix of a project's outbox of work orders, oldest first. */
export function workOrdersPrefix(): Deno.KvKey {
  return [WORK_ORDER];
}
