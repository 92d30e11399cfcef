/**
 * The `work` host functions: order work (written down only when the call
 * commits) and read the state of work this package ordered in the project.
 * Both need the `work.agent` permission, checked when called.
 *
 * @module
 */
import { NotFoundError } from "../../errors.ts";
import { newId } from "../../internal/id.ts";
import { parseWorkOrder, readWorkOrder, type WorkOrder } from "../../work/mod.ts";
import type { WorkOrderInput } from "../../extension_api/service.ts";
import type { HostFunction } from "../host_function.ts";
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
    permission: "work.agent",
    parse: parseWorkOrder,
    run(input, context) {
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
        },
        state: "ordered",
        orderedAt: new Date(context.now()).toISOString(),
      };
      context.orders.push(order);
      return Promise.resolve({ key: order.key });
    },
  },
  state: {
    name: "work.state",
    permission: "work.agent",
    parse: (args) => keyArg("work.state", args),
    async run(key, context) {
      const id = context.package.manifest.id;
      // Ordered earlier in this call: not written down yet, but the call reads its own orders.
      const order = context.orders.find((o) => o.key === key) ??
        await readWorkOrder(context.kv, key);
      if (!order || order.extensionId !== id || order.project !== context.project) {
        throw new NotFoundError(`${id} ordered no work ${key} in this project`);
      }
      return {
        key: order.key,
        state: order.state,
        title: order.title,
        orderedAt: order.orderedAt,
      };
    },
  },
};
