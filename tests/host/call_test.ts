import assert from "node:assert/strict";
import { bumpGeneration, readGeneration } from "../../runtime/memory/generation.ts";
import { listRecords } from "../../runtime/memory/store.ts";
import { WORK_ORDER_LIMITS } from "../../runtime/limits.ts";
import { listWorkOrders } from "../../runtime/work/order.ts";
import { testHost } from "../internal/packages.ts";

/**
 * A hostile package: it writes a record, then orders as much work as its
 * payload says, and either lets a refusal through or catches it and says so.
 */
const FLOOD = `import { memory, work } from "@sync/extension-api/service";
export default function register() {
  return {
    "flood.run": async (payload) => {
      await memory.write({ key: "flood.note/one", title: "written before ordering" });
      const keys = [];
      try {
        for (let i = 0; i < payload.orders; i++) {
          const { key } = await work.order({
            kind: "agent.session",
            agent: "demo",
            title: "Order " + i,
            prompt: { text: "x".repeat(payload.promptChars ?? 10) },
            onInterrupted: "wait",
          });
          keys.push(key);
        }
      } catch (error) {
        if (!payload.catch) throw error;
        return { refused: { name: error.name, message: error.message }, keys };
      }
      return { keys };
    },
  };
}
`;

Deno.test("a call whose orders the commit would refuse commits none of its records", async (t) => {
  const env = await testHost();
  try {
    await env.install({
      id: "flood",
      permissions: ["background", "work.agent"],
      handlers: ["flood.run"],
      service: FLOOD,
    });
    const memory = await env.host.projectMemory(env.project);
    const records = async () => (await listRecords(memory, {})).records.map((r) => r.key);

    await t.step("101 orders in one call", async () => {
      await assert.rejects(env.call("flood", "flood.run", { orders: 101 }), {
        name: "HandlerFailedError",
        message: /PayloadTooLargeError: work\.order\(\) refused the order: one call may place/,
      });
      assert.deepEqual(await records(), [], "the record written before ordering is not committed");
      assert.deepEqual(await listWorkOrders(memory), [], "nor any of the orders");
    });

    await t.step("one order whose prompt is 66,000 characters", async () => {
      await assert.rejects(env.call("flood", "flood.run", { orders: 1, promptChars: 66_000 }), {
        name: "HandlerFailedError",
        message: /prompt\.text: Too big/,
      });
      assert.deepEqual(await records(), []);
      assert.deepEqual(await listWorkOrders(memory), []);
    });

    await t.step(
      "a call superseded while it ran commits neither its records nor its orders",
      async () => {
        const generation = await readGeneration(memory, "flood");
        await bumpGeneration(memory, "flood");
        await assert.rejects(
          env.host.callHandler(env.project, "flood", "flood.run", {
            occasion: { kind: "extension" },
            source: { kind: "person" },
            payload: { orders: 2 },
            generation,
          }),
          { name: "SupersededError" },
        );
        assert.deepEqual(await records(), []);
        assert.deepEqual(await listWorkOrders(memory), []);
      },
    );

    await t.step("a call that returns commits its record and its orders together", async () => {
      const { keys } = await env.call("flood", "flood.run", { orders: 2 }) as { keys: string[] };
      assert.deepEqual(await records(), ["flood.note/one"]);
      assert.deepEqual((await listWorkOrders(memory)).map((o) => o.key), keys);
    });
  } finally {
    await env.close();
  }
});

Deno.test("`work.order()` refuses when called what the commit would refuse, and the handler can catch it", async (t) => {
  const env = await testHost();
  try {
    await env.install({
      id: "flood",
      permissions: ["background", "work.agent"],
      handlers: ["flood.run"],
      service: FLOOD,
    });

    await t.step("one order too many", async () => {
      const answer = await env.call("flood", "flood.run", { orders: 101, catch: true }) as {
        refused: { name: string; message: string };
        keys: string[];
      };
      assert.equal(answer.refused.name, "PayloadTooLargeError");
      assert.match(answer.refused.message, /at most \d+ orders/);
      // The handler caught it and returned: its record and the orders that fit commit together.
      assert.equal(answer.keys.length, WORK_ORDER_LIMITS.maxOrdersPerCall);
      const memory = await env.host.projectMemory(env.project);
      assert.deepEqual((await listWorkOrders(memory)).map((o) => o.key), answer.keys);
      assert.deepEqual((await listRecords(memory, {})).records.map((r) => r.key), [
        "flood.note/one",
      ]);
    });

    await t.step("a prompt past the size of one order", async () => {
      const answer = await env.call("flood", "flood.run", {
        orders: 1,
        promptChars: 66_000,
        catch: true,
      }) as { refused: { name: string; message: string } };
      assert.match(answer.refused.name, /^(PayloadTooLargeError|InvalidInputError)$/);
      assert.match(answer.refused.message, /prompt/);
    });
  } finally {
    await env.close();
  }
});
