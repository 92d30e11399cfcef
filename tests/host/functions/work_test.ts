import assert from "node:assert/strict";
import { NotFoundError, PayloadTooLargeError } from "../../../runtime/errors.ts";
import { work } from "../../../runtime/host/functions/work.ts";
import { runHostFunction } from "../../../runtime/host/host_function.ts";
import { WORK_ORDER_LIMITS } from "../../../runtime/limits.ts";
import { MemoryTransaction, TRANSACTION_LIMITS } from "../../../runtime/memory/transaction.ts";
import { readGeneration } from "../../../runtime/memory/generation.ts";
import {
  listWorkOrders,
  readWorkOrder,
  stageWorkOrder,
  type WorkOrder,
} from "../../../runtime/work/order.ts";
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
      await readWorkOrder(setup.memory, key),
      null,
      "written down only when the call commits",
    );
    await setup.context.transaction.commit();
    assert.deepEqual(await readWorkOrder(setup.memory, key), order, "in the project's outbox");
    assert.deepEqual(await listWorkOrders(setup.memory), [order]);
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
    // Committed by an earlier call into the project's outbox.
    const earlier = new MemoryTransaction(setup.memory, {
      packageId: "triage",
      generation: await readGeneration(setup.memory, "triage"),
    });
    await stageWorkOrder(earlier, written("work-mine", "triage", "/projects/one"));
    await stageWorkOrder(earlier, written("work-theirs", "other", "/projects/one"));
    await stageWorkOrder(earlier, written("work-elsewhere", "triage", "/projects/two"));
    await earlier.commit();

    await t.step("an order written down by an earlier call", async () => {
      const state = await runHostFunction(work.state, "work-mine", context) as { key: string };
      assert.equal(state.key, "work-mine");
    });

    await t.step("a failed session's reason, cut to what a state tells", async () => {
      const why = `The agent codex could not reach OpenAI during the turn. ${"more ".repeat(400)}`;
      const reader = context.workState;
      context.workState = (_project, key) =>
        Promise.resolve(key === "work-mine" ? { state: "failed", reason: why } : null);
      try {
        const state = await runHostFunction(work.state, "work-mine", context) as {
          state: string;
          reason?: string;
        };
        assert.equal(state.state, "failed");
        assert.ok(state.reason?.startsWith("The agent codex could not reach OpenAI"));
        assert.ok(state.reason!.length <= WORK_ORDER_LIMITS.maxReasonChars);
      } finally {
        context.workState = reader;
      }
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

Deno.test("`work.order()` refuses, when called, every order the commit would refuse", async (t) => {
  const ORDERED = { ...ORDER, prompt: { text: "x" } };

  await t.step("one order past the number one call may place", async () => {
    const setup = await functionContext({
      id: "triage",
      permissions: ["background", "work.agent"],
    });
    try {
      for (let i = 0; i < WORK_ORDER_LIMITS.maxOrdersPerCall; i++) {
        await runHostFunction(work.order, ORDERED, setup.context);
      }
      await assert.rejects(runHostFunction(work.order, ORDERED, setup.context), (error: Error) => {
        assert.ok(error instanceof PayloadTooLargeError);
        assert.equal(
          error.message,
          `work.order() refused the order: one call may place at most ` +
            `${WORK_ORDER_LIMITS.maxOrdersPerCall} orders, and this call placed ` +
            `${WORK_ORDER_LIMITS.maxOrdersPerCall}; order the rest from a later call`,
        );
        return true;
      });
      await setup.context.transaction.commit();
      assert.equal((await listWorkOrders(setup.memory)).length, WORK_ORDER_LIMITS.maxOrdersPerCall);
    } finally {
      await setup.close();
    }
  });

  await t.step("an order larger than one stored value may be", async () => {
    const setup = await functionContext({
      id: "triage",
      permissions: ["background", "work.agent"],
    });
    try {
      // Every field within its own limit, the whole past the order's.
      const order = {
        ...ORDER,
        prompt: {
          text: "x".repeat(WORK_ORDER_LIMITS.maxPromptChars),
          attachments: Array(4).fill("/a".padEnd(WORK_ORDER_LIMITS.maxAttachmentChars, "b")),
        },
      };
      await assert.rejects(runHostFunction(work.order, order, setup.context), (error: Error) => {
        assert.ok(error instanceof PayloadTooLargeError);
        assert.match(
          error.message,
          /^work\.order\(\) refused the order: it is \d+ bytes as stored, at most 61440 allowed \(prompt\.text is 60000 bytes, prompt\.attachments 16384\); shorten the prompt/,
        );
        return true;
      });
      assert.deepEqual(setup.context.orders, [], "nothing was staged");
    } finally {
      await setup.close();
    }
  });

  await t.step(
    "orders that would take the commit past its size with the call's records",
    async () => {
      const setup = await functionContext({
        id: "triage",
        permissions: ["background", "work.agent"],
      });
      const { context } = setup;
      try {
        // Records filling most of the commit, then large orders until one no longer fits.
        const fields = { text: "f".repeat(30_000) };
        let written = 0;
        while (written * 30_100 < TRANSACTION_LIMITS.maxBytes - 200_000) {
          await context.transaction.write({ key: `triage.note/${written++}`, fields });
        }
        const big = { ...ORDER, prompt: { text: "p".repeat(50_000) } };
        let placed = 0;
        const refusal = await (async () => {
          while (true) {
            try {
              await runHostFunction(work.order, big, context);
              placed++;
            } catch (error) {
              return error as Error;
            }
          }
        })();
        assert.ok(refusal instanceof PayloadTooLargeError, `${refusal.name}: ${refusal.message}`);
        assert.match(
          refusal.message,
          /^work\.order\(\): this change would bring the call's staged changes to \d+ bytes, at most 716800 allowed; one call's records and work orders are committed together/,
        );
        assert.ok(placed >= 1, "the orders that fit were staged");
        await context.transaction.commit();
        assert.equal((await listWorkOrders(setup.memory)).length, placed);
      } finally {
        await setup.close();
      }
    },
  );
});
