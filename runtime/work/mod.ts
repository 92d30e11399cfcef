/**
 * Work: the orders handlers place for long-running work (`agent.session`), staged with a
 * call's records and kept in the project's outbox.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export {
  listWorkOrders,
  parseWorkOrder,
  readWorkOrder,
  stagedWorkOrder,
  stageWorkOrder,
} from "./order.ts";
export type { ListWorkOrdersOptions, WorkOrder, WorkOrderStaging } from "./order.ts";
export { checkDefinedAgent } from "./defined_agents.ts";
export type { DefinedAgents } from "./defined_agents.ts";
export { recentAgentOrders } from "./recent_agent_orders.ts";
export type { RecentAgentOrders } from "./recent_agent_orders.ts";
