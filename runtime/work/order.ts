/**
 * Work orders: long-running work a handler (or a person, or an agent) asks the
 * host to perform. Today one kind, `agent.session`. Ordering stages the order
 * in the call's transaction and answers a key at once; the order is written
 * into the project's outbox (in project memory) in the same atomic commit as
 * the call's records, and raising the agent is the work executor's, which
 * reads the outbox.
 *
 * Why an outbox of entries rather than Deno KV's `atomic().enqueue()`, which
 * would ride in the same commit too: a queued message cannot be listed or read
 * back, so `work.state` and Chat could not show an order before it is raised;
 * it reaches only a listener on that project's KV, which every process would
 * have to keep open for every project; and KV retries or drops it by a policy
 * of its own. An entry stays where it was committed until the executor takes
 * it, and what was ordered is read, and tested, like any other data.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import { InvalidInputError, PayloadTooLargeError } from "../errors.ts";
import { WORK_ORDER_LIMITS } from "../limits.ts";
import type { Source } from "../types.ts";
import type { WorkOrderInput } from "../extension_api/service.ts";
import { workOrderKey, workOrdersPrefix } from "./keys.ts";

const LIMITS = WORK_ORDER_LIMITS;

/**
 * What an order must say, checked when a handler orders work. It validates
 * the extension API's `WorkOrderInput`, which stays the one definition of the
 * shape (tests/extension_api/shapes_test.ts keeps the two in step).
 * `onInterrupted` is required: the source decides, nothing guesses. The
 * whole order's size is checked when it is encoded ({@linkcode encodeWorkOrder}).
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
  agent: z.string().min(1).max(LIMITS.maxAgentChars),
  title: z.string().min(1).max(LIMITS.maxTitleChars),
  prompt: z.strictObject({
    text: z.string().min(1).max(LIMITS.maxPromptChars),
    attachments: z.array(
      // Only a path that is one is looked at further.
      z.string().min(1, { abort: true }).max(LIMITS.maxAttachmentChars, { abort: true }).refine(
        (path) => isAbsolute(path),
        { message: "an attachment is a file's absolute path, such as /home/ada/notes.md" },
      ),
    ).max(LIMITS.maxAttachments).optional(),
  }),
  onInterrupted: z.enum(["continue", "wait"]),
  about: z.string().min(1).max(LIMITS.maxAboutChars).optional(),
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

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * An order as the outbox stores it: its JSON, UTF-8. Held to
 * `WORK_ORDER_LIMITS.maxOrderBytes`, so that it fits one value of Deno KV and
 * is refused when ordered, never when the call commits.
 *
 * @param order The order, key and source included.
 * @returns The bytes to stage.
 * @throws {PayloadTooLargeError} naming the order's size and its largest parts.
 */
function encodeWorkOrder(order: WorkOrder): Uint8Array {
  const bytes = encoder.encode(JSON.stringify(order));
  if (bytes.byteLength <= LIMITS.maxOrderBytes) return bytes;
  const attachments = order.prompt.attachments ?? [];
  const attached = attachments.reduce((sum, path) => sum + encoder.encode(path).byteLength, 0);
  throw new PayloadTooLargeError(
    `work.order() refused the order: it is ${bytes.byteLength} bytes as stored, at most ` +
      `${LIMITS.maxOrderBytes} allowed (prompt.text is ` +
      `${encoder.encode(order.prompt.text).byteLength} bytes, prompt.attachments ${attached}); ` +
      `shorten the prompt, or put the long text in a record and name it in about`,
  );
}

/**
 * An order as stored in the outbox.
 *
 * @param bytes What {@linkcode encodeWorkOrder} made.
 */
export function decodeWorkOrder(bytes: Uint8Array): WorkOrder {
  return JSON.parse(decoder.decode(bytes));
}

/**
 * Where a call stages its orders: its memory transaction, which commits them
 * with the call's records. Only these two of its methods are used here.
 */
export interface WorkOrderStaging {
  /** Stages an entry to be set with the call's records; refuses what the commit could not take. */
  stageEntry(key: Deno.KvKey, value: Uint8Array, what: string): Promise<void>;
  /** An entry as the call sees it: staged by it, or committed. */
  entry(key: Deno.KvKey): Promise<Uint8Array | null>;
}

/**
 * Stages an order in the project's outbox, to be written in the same atomic
 * commit as the call's records.
 *
 * @param staging The call's memory transaction.
 * @param order The order, key and source included.
 * @throws {PayloadTooLargeError} when the order, or the call's records and
 *   orders together, are past what one commit takes; nothing is staged then.
 */
export async function stageWorkOrder(staging: WorkOrderStaging, order: WorkOrder): Promise<void> {
  await staging.stageEntry(workOrderKey(order.key), encodeWorkOrder(order), "work.order()");
}

/**
 * Reads an order as a call sees it: staged by this call, or in the outbox.
 *
 * @param staging The call's memory transaction.
 * @param key The key `work.order` answered.
 * @returns The order, or null when the project has none with that key.
 */
export async function stagedWorkOrder(
  staging: WorkOrderStaging,
  key: string,
): Promise<WorkOrder | null> {
  const bytes = await staging.entry(workOrderKey(key));
  return bytes === null ? null : decodeWorkOrder(bytes);
}

/**
 * Reads an order from its project's outbox.
 *
 * @param memory The project's memory KV.
 * @param key The key `work.order` answered.
 * @returns The order, or null when the project has none with that key.
 */
export async function readWorkOrder(memory: Deno.Kv, key: string): Promise<WorkOrder | null> {
  const entry = await memory.get<Uint8Array>(workOrderKey(key));
  return entry.value instanceof Uint8Array ? decodeWorkOrder(entry.value) : null;
}

/** Options for {@linkcode listWorkOrders}. */
export interface ListWorkOrdersOptions {
  /** Only the orders this extension placed. */
  extensionId?: string;
  /** At most this many (all by default). */
  limit?: number;
  /** Only the orders whose key sorts after this one: made later. */
  after?: string;
}

/**
 * Lists a project's outbox of work orders, oldest first: what the work
 * executor takes, and what Chat and the CLI show of work not yet raised.
 *
 * @param memory The project's memory KV.
 * @param options One extension's orders only, and how many.
 */
export async function listWorkOrders(
  memory: Deno.Kv,
  options: ListWorkOrdersOptions = {},
): Promise<WorkOrder[]> {
  const orders: WorkOrder[] = [];
  // "\0" after a key is the first key past it: the start is inclusive.
  const selector: Deno.KvListSelector = options.after === undefined
    ? { prefix: workOrdersPrefix() }
    : { prefix: workOrdersPrefix(), start: workOrderKey(`${options.after}\0`) };
  for await (const entry of memory.list<Uint8Array>(selector)) {
    if (!(entry.value instanceof Uint8Array)) continue;
    const order = decodeWorkOrder(entry.value);
    if (options.extensionId !== undefined && order.extensionId !== options.extensionId) continue;
    orders.push(order);
    if (options.limit !== undefined && orders.length >= options.limit) break;
  }
  return orders;
}
