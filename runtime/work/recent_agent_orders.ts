/**
 * How much work agents ordered in a project lately: what holds agents to
 * `WORK_ORDER_LIMITS.maxAgentOrders` in `agentOrderWindowMs`. A
 * session Sync starts is offered sync-mcp, so an agent may order work that
 * orders work in turn; the limit is what keeps that from starting sessions
 * without end.
 *
 * @module
 */
import { workOrdersPrefix } from "./keys.ts";
import { decodeWorkOrder } from "./order.ts";

/** What {@linkcode recentAgentOrders} found. */
export interface RecentAgentOrders {
  /** Orders whose source is an agent, made after `since`. */
  count: number;
  /** When the oldest of them was made (ms), or null when there is none. */
  oldestAt: number | null;
}

/**
 * Counts the orders agents placed in a project's outbox after `since`,
 * reading back from the newest: the outbox's keys sort by when orders were
 * made, so only the orders of the window are read, however many the outbox
 * keeps.
 *
 * @param memory The project's memory KV.
 * @param since The start of the window, in ms.
 */
export async function recentAgentOrders(
  memory: Deno.Kv,
  since: number,
): Promise<RecentAgentOrders> {
  let count = 0;
  let oldestAt: number | null = null;
  for await (
    const entry of memory.list<Uint8Array>({ prefix: workOrdersPrefix() }, {
      reverse: true,
      batchSize: 32,
    })
  ) {
    if (!(entry.value instanceof Uint8Array)) continue;
    const order = decodeWorkOrder(entry.value);
    const at = Date.parse(order.orderedAt);
    // An order made at the window's very start has left it.
    if (!(at > since)) break;
    if (order.source.kind !== "agent") continue;
    count++;
    oldestAt = at;
  }
  return { count, oldestAt };
}
