/**
 * Work an agent orders through sync-mcp, and the state of work it asks
 * about. An order goes into the project's outbox like a handler's, checked
 * by the same rules and limits (`parseWorkOrder`), its source the agent.
 *
 * @module
 */
import { NotFoundError, RateLimitedError } from "../errors.ts";
import type { WorkStateReader } from "../host/mod.ts";
import type { WorkOrderInput } from "../extension_api/service.ts";
import { cutText } from "../internal/cut_text.ts";
import { newId } from "../internal/id.ts";
import { WORK_ORDER_LIMITS, type WorkOrderLimits } from "../limits.ts";
import { MemoryTransaction } from "../memory/mod.ts";
import type { Source } from "../types.ts";
import {
  checkDefinedAgent,
  type DefinedAgents,
  parseWorkOrder,
  readWorkOrder,
  recentAgentOrders,
  stageWorkOrder,
  type WorkOrder,
} from "../work/mod.ts";

/** Options for {@linkcode orderWork}. */
export interface OrderWorkOptions {
  /** The project's resolved folder, where the work runs. */
  project: string;
  /** The agent that orders it. */
  source: Source;
  /** The host's clock, in ms. */
  now: () => number;
  /** How many orders agents may place in a window; `WORK_ORDER_LIMITS` when absent. */
  limits?: Pick<WorkOrderLimits, "maxAgentOrders" | "agentOrderWindowMs">;
  /** The agents an order may name; any name is taken when absent. */
  agents?: DefinedAgents;
}

/** What an agent is told of work it ordered or asks about. */
export interface WorkState {
  /** The order's key. */
  key: string;
  /** Where the work has got to. */
  state: string;
  /** The order's title. */
  title: string;
  /** When it was ordered, as an ISO 8601 time. */
  orderedAt: string;
  /**
   * Why the session failed or was interrupted, in its own words, cut to
   * `WORK_ORDER_LIMITS.maxReasonChars`; absent otherwise.
   */
  reason?: string;
}

/**
 * Writes an order into the project's outbox, its source the agent, unless
 * agents ordered as much in the project as `maxAgentOrders` allows within
 * its window. Orders into one project memory are counted and written one at
 * a time, so orders sent together cannot pass the limit between them.
 *
 * @param memory The project's memory KV.
 * @param input The order, as `work.order()` takes it from a handler.
 * @param options The project, the agent, the clock.
 * @returns The order as written.
 * @throws {InvalidInputError} naming each wrong field.
 * @throws {PayloadTooLargeError} when the order is larger than an order may be.
 * @throws {RateLimitedError} when agents ordered the most work the window allows.
 */
export async function orderWork(
  memory: Deno.Kv,
  input: unknown,
  options: OrderWorkOptions,
): Promise<WorkOrder> {
  const parsed: WorkOrderInput = parseWorkOrder(input);
  await checkDefinedAgent(parsed.agent, options.agents, "work_order");
  const before = ordering.get(memory) ?? Promise.resolve();
  const written = before.then(() => writeOrder(memory, parsed, options));
  const settled = written.then(() => {}, () => {});
  ordering.set(memory, settled);
  settled.then(() => {
    if (ordering.get(memory) === settled) ordering.delete(memory);
  });
  return await written;
}

/** The last order being written into each project memory: the next waits for it. */
const ordering = new WeakMap<Deno.Kv, Promise<void>>();

async function writeOrder(
  memory: Deno.Kv,
  parsed: WorkOrderInput,
  options: OrderWorkOptions,
): Promise<WorkOrder> {
  const limits = options.limits ?? WORK_ORDER_LIMITS;
  const now = options.now();
  const recent = await recentAgentOrders(memory, now - limits.agentOrderWindowMs);
  if (recent.count >= limits.maxAgentOrders) {
    const again = Math.max(
      1,
      Math.ceil(((recent.oldestAt ?? now) + limits.agentOrderWindowMs - now) / 1000),
    );
    throw new RateLimitedError(
      `work_order refused the order: agents ordered ${recent.count} pieces of work in this ` +
        `project in the last ${limits.agentOrderWindowMs / 1000} s, and the limit is ` +
        `${limits.maxAgentOrders}; try again in ${again} s, or ask a person to start it from Chat`,
    );
  }
  const order: WorkOrder = {
    ...parsed,
    key: `work-${newId(now)}`,
    project: options.project,
    source: options.source,
    state: "ordered",
    orderedAt: new Date(now).toISOString(),
  };
  const transaction = new MemoryTransaction(memory, { by: "agent", project: options.project });
  await stageWorkOrder(transaction, order);
  await transaction.commit();
  return order;
}

/**
 * The state of a piece of work in the project: the one place an agent's
 * `work_state` reads it. The order says `ordered`; once a session performs
 * it, `performing` tells where that session stands (`running`, `waiting`,
 * `ended`, `failed`, `interrupted`) — the same reader `work.state()` uses —
 * and, for a session that failed or was interrupted, why.
 *
 * @param memory The project's memory KV.
 * @param key The key `work_order` answered.
 * @param options The project, and where work stands once performed.
 * @throws {NotFoundError} when the project has no work with that key.
 */
export async function readWorkState(
  memory: Deno.Kv,
  key: string,
  options: { project: string; performing?: WorkStateReader },
): Promise<WorkState> {
  const order = await readWorkOrder(memory, key);
  if (!order) {
    throw new NotFoundError(
      `This project has no work ${key}; give the key work_order answered, such as work-…`,
    );
  }
  const performing = await options.performing?.(options.project, order.key) ?? null;
  return {
    key: order.key,
    state: performing?.state ?? order.state,
    title: order.title,
    orderedAt: order.orderedAt,
    ...(performing?.reason
      ? { reason: cutText(performing.reason, WORK_ORDER_LIMITS.maxReasonChars) }
      : {}),
  };
}
