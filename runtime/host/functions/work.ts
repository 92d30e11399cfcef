/**
 * The `work` host functions: order work (staged in the call's transaction and
 * committed with its records, into the project's outbox) and read the state
 * of work this package ordered in the project. Both need the `work.agent`
 * permission, checked when called.
 *
 * @module
 */
import { NotFoundError, PayloadTooLargeError } from "../../errors.ts";
import { cutText } from "../../internal/cut_text.ts";
import { newId } from "../../internal/id.ts";
import { WORK_ORDER_LIMITS } from "../../limits.ts";
import {
  checkDefinedAgent,
  parseWorkOrder,
  stagedWorkOrder,
  stageWorkOrder,
  type WorkOrder,
} from "../../work/mod.ts";
import type { WorkOrderInput } from "../../extension_api/service.ts";
import type { Source } from "../../types.ts";
import type { HostFunction, HostFunctionContext } from "../host_function.ts";
import { keyArg } from "./_key_arg.ts";

/** The `work` host functions, by the name the extension API gives each. */
export const work: {
  /** `work.order({ kind, … })`: stages an order and answers its key at once. */
  readonly order: HostFunction<WorkOrderInput>;
  /** `work.state(key)`: the state of work this package ordered in this project. */
  readonly state: HostFunction<string>;
} = {
  order: {
    name: "work.order",
    reach: "stages",
    permission: "work.agent",
    parse: parseWorkOrder,
    async run(input, context) {
      // Every limit is checked here, so the handler can catch a refusal and
      // the commit never meets an order it would refuse.
      const most = WORK_ORDER_LIMITS.maxOrdersPerCall;
      if (context.orders.length >= most) {
        throw new PayloadTooLargeError(
          `work.order() refused the order: one call may place at most ${most} orders, and this ` +
            `call placed ${context.orders.length}; order the rest from a later call`,
        );
      }
      await checkDefinedAgent(input.agent, context.agents, "work.order()");
      const { manifest } = context.package;
      const order: WorkOrder = {
        ...input,
        key: `work-${newId(context.now())}`,
        project: context.project,
        extensionId: manifest.id,
        source: {
          kind: "handler",
          extensionId: manifest.id,
          extensionName: manifest.name,
          handler: context.handler,
          ...calledFor(context),
        },
        state: "ordered",
        orderedAt: new Date(context.now()).toISOString(),
      };
      await stageWorkOrder(context.transaction, order);
      context.orders.push(order);
      return { key: order.key };
    },
  },
  state: {
    name: "work.state",
    reach: "reads",
    permission: "work.agent",
    parse: (args) => keyArg("work.state", args),
    async run(key, context) {
      const id = context.package.manifest.id;
      // Staged earlier in this call, or committed into the project's outbox by an earlier one.
      const order = await stagedWorkOrder(context.transaction, key);
      if (!order || order.extensionId !== id || order.project !== context.project) {
        throw new NotFoundError(`${id} ordered no work ${key} in this project`);
      }
      // Committed orders have a state once a session performs them; a staged one has not.
      const performing = await context.workState?.(context.project, order.key) ?? null;
      return {
        key: order.key,
        state: performing?.state ?? order.state,
        title: order.title,
        orderedAt: order.orderedAt,
        ...(performing?.reason
          ? { reason: cutText(performing.reason, WORK_ORDER_LIMITS.maxReasonChars) }
          : {}),
      };
    },
  },
};

/**
 * What a handler's order says of the call that placed it: why the handler
 * was called, who asked, when, and what the handler does in the package's
 * words — on the clock, the schedule row's sentence, which is what the
 * person read on the extension's page when they let it run.
 */
function calledFor(context: HostFunctionContext): Partial<Extract<Source, { kind: "handler" }>> {
  const { call, handler } = context;
  if (!call) return {};
  const { manifest } = context.package;
  const row = call.occasion.kind === "clock"
    ? manifest.schedule.find((scheduled) => scheduled.handler === handler)
    : undefined;
  const description = row?.description ?? manifest.handlers[handler]?.description;
  return {
    occasion: call.occasion,
    calledBy: call.source,
    calledAt: new Date(call.startedAt).toISOString(),
    ...(description ? { description } : {}),
  };
}
