/**
 * Work an agent orders through sync-mcp, and the state of work it asks
 * about. An order goes into the project's outbox like a handler's, checked
 * by the same rules and limits (`parseWorkOrder`), its source the agent.
 *
 * @module
 */
import { NotFoundError } from "../errors.ts";
import type { WorkStateReader } from "../host/mod.ts";
import type { WorkOrderInput } from "../extension_api/service.ts";
import { newId } from "../internal/id.ts";
import { MemoryTransaction } from "../memory/mod.ts";
import type { Source } from "../types.ts";
import { parseWorkOrder, readWorkOrder, stageWorkOrder, type WorkOrder } from "../work/mod.ts";

/** Options for {@linkcode orderWork}. */
export interface OrderWorkOptions {
  /** The project's resolved folder, where the work runs. */
  project: string;
  /** The agent that orders it. */
  source: Source;
  /** The host's clock, in ms. */
  now: () => number;
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
}

/**
 * Writes an order into the project's outbox, its source the agent.
 *
 * @param memory The project's memory KV.
 * @param input The order, as `work.order()` takes it from a handler.
 * @param options The project, the agent, the clock.
 * @returns The order as written.
 * @throws {InvalidInputError} naming each wrong field.
 * @throws {PayloadTooLargeError} when the order is larger than an order may be.
 */
export async function orderWork(
  memory: Deno.Kv,
  input: unknown,
  options: OrderWorkOptions,
): Promise<WorkOrder> {
  const parsed: WorkOrderInput = parseWorkOrder(input);
  const now = options.now();
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
 * `ended`, `failed`, `interrupted`) — the same reader `work.state()` uses.
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
    state: performing ?? order.state,
    title: order.title,
    orderedAt: order.orderedAt,
  };
}
