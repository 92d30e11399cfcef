import assert from "node:assert/strict";
import { orderWork } from "../../runtime/mcp/agent_work.ts";
import { RateLimitedError } from "../../runtime/errors.ts";
import { WORK_ORDER_LIMITS } from "../../runtime/limits.ts";
import { listWorkOrders } from "../../runtime/work/mod.ts";
import { commitOrder } from "../internal/sessions.ts";

const PROJECT = "/projects/agent-work";
const AGENT = { kind: "agent", name: "claude-code" } as const;
const LIMITS = { maxAgentOrders: 3, agentOrderWindowMs: 60_000 };

function input(title: string) {
  return {
    kind: "agent.session",
    agent: "demo",
    title,
    prompt: { text: `Do ${title}` },
    onInterrupted: "wait",
  };
}

Deno.test("`orderWork()` holds agents to the orders a window allows in a project", async (t) => {
  using memory = await Deno.openKv(":memory:");
  let now = Date.UTC(2026, 10, 30, 12, 0, 0);
  const order = (title: string) =>
    orderWork(memory, input(title), {
      project: PROJECT,
      source: AGENT,
      now: () => now,
      limits: LIMITS,
    });

  await t.step("the default allows ten a minute", () => {
    assert.equal(WORK_ORDER_LIMITS.maxAgentOrders, 10);
    assert.equal(WORK_ORDER_LIMITS.agentOrderWindowMs, 60_000);
  });

  await t.step("up to the limit, orders are written", async () => {
    for (const title of ["a", "b", "c"]) {
      now += 1_000;
      await order(title);
    }
    assert.deepEqual((await listWorkOrders(memory)).map((o) => o.title), ["a", "b", "c"]);
  });

  await t.step(
    "past it, the order is refused, says when to try again, and writes nothing",
    async () => {
      now += 1_000;
      const error = await order("d").catch((e) => e);
      assert.ok(error instanceof RateLimitedError, String(error));
      // The oldest of the three was made 3 s ago: it leaves the window in 57 s.
      assert.match(
        error.message,
        /agents ordered 3 pieces of work in this project in the last 60 s, and the limit is 3; try again in 57 s/,
      );
      assert.equal((await listWorkOrders(memory)).length, 3);
    },
  );

  await t.step("work a handler ordered does not count against agents", async () => {
    await commitOrder(memory, PROJECT, { key: "work-handler", prompt: { text: "x" } });
    const error = await order("e").catch((e) => e);
    assert.ok(error instanceof RateLimitedError);
    assert.match(error.message, /agents ordered 3 /);
  });

  await t.step("once the oldest leaves the window, an agent may order again", async () => {
    now += 57_000;
    await order("f");
    assert.ok((await listWorkOrders(memory)).some((o) => o.title === "f"));
  });

  await t.step("orders sent together cannot pass the limit between them", async () => {
    now += 120_000;
    const results = await Promise.allSettled(
      ["g", "h", "i", "j", "k"].map((title) => order(title)),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 3);
    const refused = results.filter((r) => r.status === "rejected");
    assert.equal(refused.length, 2);
    for (const r of refused) {
      assert.ok((r as PromiseRejectedResult).reason instanceof RateLimitedError);
    }
  });

  await t.step(
    "a malformed order is refused for what it is, before anything is counted",
    async () => {
      now += 120_000;
      await assert.rejects(() =>
        orderWork(memory, { kind: "agent.session" }, {
          project: PROJECT,
          source: AGENT,
          now: () => now,
          limits: LIMITS,
        }), /title|agent|prompt/);
    },
  );
});
