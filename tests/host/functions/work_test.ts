import assert from "node:assert/strict";
import { NotFoundError } from "../../../runtime/errors.ts";
import { work } from "../../../runtime/host/functions/work.ts";
import { runHostFunction } from "../../../runtime/host/host_function.ts";
import { readWorkOrder, type WorkOrder, writeWorkOrders } from "../../../runtime/work/order.ts";
import { functionContext } from "../../internal/host_functions.ts";

const ORDER = {
  kind: "agent.session" as const,
  agent: "claude-code",
  title: "Look at issue 1",
  prompt: { text: "Please look" },
  onInterrupted: "wait" as const,
};

Deno.test("`work.order()` stages an order from the running handler and answers its key", async () => {
  const setup = await functionContext({ id: "triage", permissions: ["background", "work.agent"] });
  try {
    const { key } = await runHostFunction(work.order, ORDER, setup.context) as { key: string };
    assert.match(key, /^work-/);
    const [order] = setup.context.orders;
    assert.equal(order.key, key);
    assert.equal(order.project, "/projects/one");
    assert.equal(order.extensionId, "triage");
    assert.deepEqual(order.source, {
      kind: "handler",
      extensionId: "triage",
      extensionName: "Triage",
      handler: "triage.run",
    });
    assert.equal(order.state, "ordered");
    assert.equal(order.orderedAt, "2030-01-01T00:00:00.000Z");
    assert.equal(
      await readWorkOrder(setup.kv, key),
      null,
      "written down only when the call commits",
    );
  } finally {
    await setup.close();
  }
});

Deno.test("`work.state()` answers work this package ordered in this project, and nothing else", async (t) => {
  const setup = await functionContext({ id: "triage", permissions: ["background", "work.agent"] });
  const { context } = setup;
  try {
    await t.step("an order staged earlier in the same call", async () => {
      const { key } = await runHostFunction(work.order, ORDER, context) as { key: string };
      assert.deepEqual(await runHostFunction(work.state, { key }, context), {
        key,
        state: "ordered",
        title: "Look at issue 1",
        orderedAt: "2030-01-01T00:00:00.000Z",
      });
    });

    const written = (key: string, extensionId: string, project: string): WorkOrder => ({
      ...context.orders[0],
      key,
      extensionId,
      project,
    });
    await writeWorkOrders(setup.kv, [
      written("work-mine", "triage", "/projects/one"),
      written("work-theirs", "other", "/projects/one"),
      written("work-elsewhere", "triage", "/projects/two"),
    ]);

    await t.step("an order written down by an earlier call", async () => {
      const state = await runHostFunction(work.state, "work-mine", context) as { key: string };
      assert.equal(state.key, "work-mine");
    });

    await t.step("another package's work, another project's, or none is not found", async () => {
      for (const key of ["work-theirs", "work-elsewhere", "work-never"]) {
        await assert.rejects(
          runHostFunction(work.state, key, context),
          (error: Error) => {
            assert.ok(error instanceof NotFoundError);
            assert.equal(error.message, `triage ordered no work ${key} in this project`);
            return true;
          },
        );
      }
    });
  } finally {
    await setup.close();
  }
});
