import assert from "node:assert/strict";
import { Host } from "../../runtime/host/host.ts";
import { HandlerBusyError } from "../../runtime/errors.ts";
import { claimHandler, holdHandler, releaseHandler } from "../../runtime/host/running_claim.ts";
import { runningClaimKey } from "../../runtime/host/keys.ts";
import { testHost } from "../internal/packages.ts";

Deno.test("Host.callHandler() is not re-entered from another process on the same installation", async (t) => {
  const env = await testHost({ limits: { timeoutMs: 3_000 } });
  // A second host over the same installation KV stands for `sync call` beside `sync serve`.
  const other = new Host({ kv: env.kv, home: env.home, limits: env.host.limits, log: () => {} });
  try {
    await env.install({
      id: "long",
      handlers: ["long.run"],
      service: `export default function register() {
  return {
    "long.run": () => {
      console.log("started");
      const until = Date.now() + 700;
      while (Date.now() < until) {}
      return "done";
    },
  };
}`,
    });
    const call = (host: Host) =>
      host.callHandler(env.project, "long", "long.run", {
        occasion: { kind: "extension" },
        source: { kind: "person" },
      });

    await t.step("the second caller is refused while the first runs", async () => {
      const first = call(env.host);
      const until = Date.now() + 10_000;
      while (!env.logs.includes("[long] started")) {
        if (Date.now() > until) throw new Error("the first call never started");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await assert.rejects(call(other), HandlerBusyError);
      assert.equal((await first).value, "done");
    });

    await t.step("once it ended, the other caller runs it", async () => {
      assert.equal((await call(other)).value, "done");
    });
  } finally {
    await other.close();
    await env.close();
  }
});

Deno.test("claimHandler() refuses a held claim until it runs out, and releaseHandler() lets go", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const key = runningClaimKey("/p", "x", "x.run");
    const held = await claimHandler(kv, key, { now: 1_000, forMs: 500 });
    assert.ok(held);
    assert.equal(await claimHandler(kv, key, { now: 1_200, forMs: 500 }), null);
    // A process that stopped mid-call never lets go; its claim runs out.
    const after = await claimHandler(kv, key, { now: 1_600, forMs: 500 });
    assert.ok(after);
    await releaseHandler(kv, key, held!);
    assert.equal(await claimHandler(kv, key, { now: 1_700, forMs: 500 }), null, "a stale release");
    await releaseHandler(kv, key, after!);
    assert.ok(await claimHandler(kv, key, { now: 1_700, forMs: 500 }));
  } finally {
    kv.close();
  }
});

Deno.test("holdHandler() keeps its claim alive past one stretch until released", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const key = runningClaimKey("/p", "x", "x.queued");
    const hold = await holdHandler(kv, key, { now: Date.now, forMs: 150, renewEveryMs: 40 });
    assert.ok(hold);
    // Three stretches on, as a call still waiting for an isolate would be.
    await new Promise((resolve) => setTimeout(resolve, 450));
    assert.equal(await claimHandler(kv, key, { now: Date.now(), forMs: 150 }), null);
    assert.equal(await holdHandler(kv, key, { now: Date.now, forMs: 150 }), null);
    await hold.release();
    assert.ok(await claimHandler(kv, key, { now: Date.now(), forMs: 150 }));
  } finally {
    kv.close();
  }
});
