/**
 * Work orders: long-running work a handler (or a person, or an agent) asks the
 * host to perform. Today one kind, `agent.session`. Ordering writes the order
 * down and answers a key at once; raising the agent is the work executor's.
 *
 * @module
 */
import { z } from "zod";
import { InvalidInputError } from "../errors.ts";
import type { Source } from "../types.ts";
import type { WorkOrderInput } from "../extension_api/service.ts";
import { workOrderIndexKey, workOrderKey } from "./keys.ts";

/**
 * What an order must say, checked when a handler orders work. It validates
 * the extension API's `WorkOrderInput`, which stays the one definition of the
 * shape (tests/extension_api/shapes_test.ts keeps the two in step).
 * `onInterrupted` is required: the source decides, nothing guesses.
 *
 * Exported for that test alone; other modules call {@linkcode parseWorkOrder}.
 * Its type is left to inference on purpose: the test compares the inferred
 * input and output types with the API's, which a declared type such as
 * `z.ZodType<WorkOrderInput>` would replace with the API's own, and spelling
 * out zod's types names types this module cannot export.
 *
 * @internal
 */
export const workOrderInputSchema = z.strictObject({
  kind: z.literal("agent.session"),
  agent: z.string().min(1).max(100),
  title: z.string().min(1).max(200),
  prompt: z.strictObject({
    text: z.string().min(1).max(100_000),
    attachments: z.array(z.string().min(1).max(4096)).max(32).optional(),
  }),
  onInterrupted: z.enum(["continue", "wait"]),
  about: z.string().min(1).max(300).optional(),
});

/** An order as written down. Its source never changes. */
export interface WorkOrder extends WorkOrderInput {
  /** Names the order, such as `work-<time-ordered id>`; `work.state` reads it back by this. */
  key: string;
  /** The project's resolved folder, where the work runs. */
  project: string;
  /** The extension that ordered it, when a handler did. */
  extensionId?: string;
  /** Who asked for the work; set when ordered, never edited. */
  source: Source;
  /** `ordered` once written down; the only state so far. */
  state: "ordered";
  /** When it was ordered, as an ISO 8601 time. */
  orderedAt: string;
}

/**
 * Validates an order, naming each wrong field.
 *
 * @param value What a handler passed to `work.order()`, as parsed JSON.
 * @returns The order as the extension API shapes it.
 * @throws {InvalidInputError} e.g. `work.order(): onInterrupted: expected "continue" or "wait"`.
 */
export function parseWorkOrder(value: unknown): WorkOrderInput {
  const result = workOrderInputSchema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join(".") || "(order)";
    return `${path}: ${issue.message}`;
  });
  throw new InvalidInputError(`work.order() refused the order: ${problems.join("; ")}`);
}

/**
 * Writes orders down in one atomic commit, each once (an existing key is never
 * overwritten), with an index by project and extension for those a handler ordered.
 *
 * @param kv The installation's KV.
 * @param orders The orders one call made; nothing is written when empty.
 * @throws {InvalidInputError} when an order's key is already written down; then none is.
 */
export async function writeWorkOrders(kv: Deno.Kv, orders: WorkOrder[]): Promise<void> {
  if (orders.length === 0) return;
  const op = kv.atomic();
  for (const order of orders) {
    op.check({ key: workOrderKey(order.key), versionstamp: null }).set(
      workOrderKey(order.key),
      order,
    );
    if (order.extensionId) {
      op.set(workOrderIndexKey(order.project, order.extensionId, order.key), order.key);
    }
  }
  const result = await op.commit();
  if (!result.ok) throw new InvalidInputError("A work order with the same key already exists");
}

/**
 * Reads an order by key.
 *
 * @param kv The installation's KV.
 * @param key The key `work.order` answered.
 * @returns The order, or null when none has that key.
 */
export async function readWorkOrder(kv: Deno.Kv, key: string): Promise<WorkOrder | null> {
  return (await kv.get<WorkOrder>(workOrderKey(key))).value;
}
