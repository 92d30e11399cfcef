import assert from "node:assert/strict";
import { HandlerBusyError } from "../../runtime/errors.ts";
import { CLAIM_AFTER_MS } from "../../runtime/host/call.ts";
import { handlerRateKey, runningClaimKey } from "../../runtime/host/keys.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { claimHandler, runningHandlers } from "../../runtime/host/running_claim.ts";
import { listRecords } from "../../runtime/memory/store.ts";
import { testHost } from "../internal/packages.ts";

const CALL = { occasion: { kind: "extension" as const }, source: { kind: "person" as const } };

/** Waits until `check` holds, or fails naming `what`. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

Deno.test("`callHandler()` claims its handler once it needs to, and is refused where a claim would have been", async (t) => {
  /** What the handler `lazy.fetch` found running when its request arrived. */
  const seenByServer: string[][] = [];
  const env = await testHost({ limits: { timeoutMs: 5_000 } });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
    seenByServer.push(await runningHandlers(env.kv, env.project, "lazy", { now: Date.now() }));
    return new Response("hello");
  });
  const address = `127.0.0.1:${server.addr.port}`;
  const running = () => runningHandlers(env.kv, env.project, "lazy", { now: Date.now() });
  const call = (handler: string) => env.host.callHandler(env.project, "lazy", handler, CALL);
  try {
    await env.install({
      id: "lazy",
      permissions: ["background", `net:${address}`],
      handlers: ["lazy.read", "lazy.write", "lazy.fetch", "lazy.spin", "lazy.throw"],
      service: `import { memory, net } from "@sync/extension-api/service";
export default function register() {
  return {
    "lazy.read": async () => {
      console.log("reading");
      return (await memory.list({ kind: "lazy.note" })).records.length;
    },
    "lazy.write": async () => {
      await memory.write({ key: "lazy.note/a", title: "a" });
      return "wrote";
    },
    "lazy.fetch": async () => (await net.fetch("http://${address}/")).status,
    "lazy.throw": () => {
      throw new Error("no");
    },
    "lazy.spin": () => {
      const until = Date.now() + ${CLAIM_AFTER_MS * 12};
      while (Date.now() < until) {}
      return "spun";
    },
  };
}`,
    });

    await t.step(
      "a call that only read is recorded, counted and told, and leaves no claim",
      async () => {
        const { value, receipt } = await call("lazy.read");
        assert.equal(value, 0);
        assert.deepEqual(await running(), []);
        const [stored] = await listReceipts(env.kv, env.project, { packageId: "lazy" });
        assert.deepEqual([stored.id, stored.outcome], [receipt.id, "ok"]);
        const count = await env.kv.get<unknown[]>(handlerRateKey(env.project, "lazy", "lazy.read"));
        assert.equal(count.value?.length, 1, "the call counts against the rate limit");
        assert.ok(env.logs.includes("[lazy] reading"), "its console line is told");
      },
    );

    await t.step(
      "a call that fails before it needed a claim leaves its receipt, counted",
      async () => {
        await assert.rejects(call("lazy.throw"), { name: "HandlerFailedError" });
        const [stored] = await listReceipts(env.kv, env.project, { packageId: "lazy" });
        assert.deepEqual([stored.handler, stored.outcome, stored.error?.name], [
          "lazy.throw",
          "failed",
          "HandlerFailedError",
        ]);
        const count = await env.kv.get<unknown[]>(
          handlerRateKey(env.project, "lazy", "lazy.throw"),
        );
        assert.equal(count.value?.length, 1);
        assert.deepEqual(await running(), []);
      },
    );

    await t.step(
      "a second call of a handler running in this process is refused at once",
      async () => {
        // The first is known to run once its claim shows: the second comes while it does.
        const first = call("lazy.spin");
        await until(async () => (await running()).includes("lazy.spin"), "the claim of lazy.spin");
        const [second] = await Promise.allSettled([call("lazy.spin")]);
        assert.equal(second.status, "rejected");
        assert.ok((second as PromiseRejectedResult).reason instanceof HandlerBusyError);
        assert.equal((await first).value, "spun");
      },
    );

    await t.step("a request is made only once the claim is held", async () => {
      assert.equal((await call("lazy.fetch")).value, 200);
      assert.deepEqual(seenByServer, [["lazy.fetch"]]);
      assert.deepEqual(await running(), []);
    });

    await t.step(
      `a call that runs past ${CLAIM_AFTER_MS} ms claims, and shows as running`,
      async () => {
        const spinning = call("lazy.spin");
        await until(async () => (await running()).includes("lazy.spin"), "the claim of lazy.spin");
        assert.equal((await spinning).value, "spun");
        assert.deepEqual(await running(), []);
      },
    );

    await t.step("a claim held elsewhere refuses each call, and nothing of it counts", async () => {
      for (const handler of ["lazy.read", "lazy.write", "lazy.fetch", "lazy.throw"]) {
        // Another process's claim, judged by its expiry alone.
        const key = runningClaimKey(env.project, "lazy", handler);
        assert.ok(await claimHandler(env.kv, key, { now: Date.now(), forMs: 60_000 }));
      }
      const fetchedBefore = seenByServer.length;
      for (const handler of ["lazy.read", "lazy.write", "lazy.fetch", "lazy.throw"]) {
        await assert.rejects(call(handler), HandlerBusyError, handler);
      }
      assert.equal(seenByServer.length, fetchedBefore, "no request was made");
      const memory = await env.host.projectMemory(env.project);
      assert.deepEqual((await listRecords(memory, { kind: "lazy.note" })).records, []);
      const receipts = await listReceipts(env.kv, env.project, { packageId: "lazy" });
      assert.deepEqual(
        receipts.slice(0, 4).map((r) => [r.handler, r.outcome, r.error?.name]).sort(),
        [
          ["lazy.fetch", "failed", "HandlerBusyError"],
          ["lazy.read", "failed", "HandlerBusyError"],
          ["lazy.throw", "failed", "HandlerBusyError"],
          ["lazy.write", "failed", "HandlerBusyError"],
        ],
      );
    });
  } finally {
    await server.shutdown();
    await env.close();
  }
});
