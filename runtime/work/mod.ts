/**
 * Work: the orders handlers place for long-running work (`agent.session`), as written down.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { parseWorkOrder, readWorkOrder, writeWorkOrders } from "./order.ts";
export type { WorkOrder } from "./order.ts";
