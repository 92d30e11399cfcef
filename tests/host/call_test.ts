import assert from "node:assert/strict";
import { bumpGeneration, readGeneration } from "../../runtime/memory/generation.ts";
import { listRecords } from "../../runtime/memory/store.ts";
import { Host } from "../../runtime/host/host.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { join } from "node:path";
import { RECEIPT_LIMITS, WORK_ORDER_LIMITS } from "../../runtime/limits.ts";
import { listWorkOrders } from "../../runtime/work/order.ts";
import { testHost, writePackage } from "../internal/packages.ts";

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
        message: /failed: work\.order\(\) refused the order: one call may place/,
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

Deno.test("a call or a listing naming an id no package can have is refused by name, never a receipt that cannot be written", async () => {
  const env = await testHost();
  try {
    const long = "a".repeat(3000);
    for (const id of [long, "Not An Id", "a\u0000b"]) {
      await assert.rejects(
        env.call(id, `${id}.run`),
        (error: Error) =>
          error.name === "InvalidInputError" && /is not a package id/.test(error.message),
      );
      await assert.rejects(
        listReceipts(env.kv, env.project, { packageId: id }),
        (error: Error) =>
          error.name === "InvalidInputError" && /is not a package id/.test(error.message),
      );
    }
    assert.deepEqual(env.logs.filter((line) => /could not be written/.test(line)), []);
  } finally {
    await env.close();
  }
});

Deno.test("an error message of 100,000 characters still leaves a receipt", async () => {
  const env = await testHost();
  try {
    await env.install({
      id: "loud",
      handlers: ["loud.run"],
      service: `export default function register() {
  return { "loud.run": () => { throw new Error("x".repeat(100000)); } };
}
`,
    });
    await assert.rejects(env.call("loud", "loud.run"), { name: "HandlerFailedError" });
    const [receipt] = await listReceipts(env.kv, env.project, { packageId: "loud" });
    assert.ok(receipt, "the attempt left a receipt");
    assert.equal(receipt.outcome, "failed");
    assert.equal(receipt.error?.name, "HandlerFailedError");
    const message = receipt.error?.message ?? "";
    assert.ok(
      message.length <= RECEIPT_LIMITS.maxErrorMessageChars,
      `${message.length} characters`,
    );
    assert.match(message, /failed: x{1000}/, "it starts as the error did");
    assert.match(message, /x… \[cut: \d{2},\d{3} more characters\]$/, "and says what was cut");
  } finally {
    await env.close();
  }
});

Deno.test("a receipt that cannot be written does not change what the caller is told", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-receipt-fails-" });
  const env = await testHost();
  // The installation is opened a second time, as another process would, and that
  // handle is lost while the handler runs: the claim and the receipt cannot be written.
  const file = join(root, "sync.kv");
  const installation = await Deno.openKv(file);
  const lost = await Deno.openKv(file);
  const logs: string[] = [];
  const host = new Host({ kv: installation, home: root, log: (line) => logs.push(line) });
  const other = new Host({ kv: lost, home: root, log: (line) => logs.push(line) });
  try {
    const dir = await writePackage(join(root, "packages"), {
      id: "slow",
      handlers: ["slow.run"],
      service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "slow.run": async () => {
      await memory.write({ key: "slow.note/one", title: "committed" });
      console.log("started");
      const until = Date.now() + 1500;
      while (Date.now() < until) {}
      return "done";
    },
  };
}
`,
    });
    await installPackage(host, dir, env.project, { approve: true });
    const running = other.callHandler(env.project, "slow", "slow.run", {
      occasion: { kind: "extension" },
      source: { kind: "person" },
    });
    const until = Date.now() + 30_000;
    while (!logs.includes("[slow] started")) {
      if (Date.now() > until) throw new Error("the call never started");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    lost.close();
    const { value } = await running;
    assert.equal(value, "done", "the call committed, and the caller is told so");
    const memory = await host.projectMemory(env.project);
    assert.deepEqual((await listRecords(memory, {})).records.map((r) => r.key), ["slow.note/one"]);
    assert.ok(
      logs.some((line) => /receipt/i.test(line)),
      `the lost receipt is logged: ${logs.join(" | ")}`,
    );
  } finally {
    await other.close();
    await host.close();
    installation.close();
    await env.close();
    await Deno.remove(root, { recursive: true });
  }
});
