import assert from "node:assert/strict";
import { Host } from "../../runtime/host/host.ts";
import { HandlerBusyError } from "../../runtime/errors.ts";
import {
  claimHandler,
  holdHandler,
  recordInterruptedCalls,
  recordUnclaimedCall,
  releaseHandler,
  runningHandlers,
} from "../../runtime/host/running_claim.ts";
import { ProcessLock } from "../../runtime/host/process_lock.ts";
import { listReceipts, RECEIPTS_KEPT } from "../../runtime/host/receipts.ts";
import type { Receipt } from "../../runtime/types.ts";
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

/** The receipt a call starts with, as `callHandler` makes it. */
function started(id: string, handler = "x.run"): Receipt {
  return {
    id,
    project: "/p",
    packageId: "x",
    handler,
    occasion: { kind: "extension" },
    startedAt: new Date(1_000).toISOString(),
    endedAt: "",
    outcome: "ok",
  };
}

Deno.test("a claim whose process is gone is taken over at once, and its call leaves an interrupted receipt", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-claims-" });
  const kv = await Deno.openKv(":memory:");
  const ours = await ProcessLock.take(home);
  try {
    const key = runningClaimKey("/p", "x", "x.run");
    /** Claims `x.run` at `now`, for the call `id`, as the process holding `lock`. */
    const claim = (lock: ProcessLock, now: number, id: string) =>
      claimHandler(kv, key, { now, forMs: 500, receipt: started(id), lock });

    await t.step("the claim of a process that runs is not taken", async () => {
      const theirs = await ProcessLock.take(home);
      try {
        assert.ok(
          await claim(theirs, 1_000, "r1"),
        );
        assert.equal(
          await claim(ours, 1_100, "r2"),
          null,
        );
      } finally {
        theirs.release();
      }
    });

    await t.step(
      "once that process is gone, the next claim takes it, well before it runs out",
      async () => {
        assert.ok(
          await claim(ours, 1_200, "r2"),
        );
        const receipts = await listReceipts(kv, "/p");
        assert.deepEqual(receipts.map((r) => [r.id, r.outcome, r.error?.name]), [
          ["r1", "interrupted", "ProcessStopped"],
        ]);
        assert.equal(receipts[0].startedAt, started("r1").startedAt);
        assert.equal(receipts[0].endedAt, new Date(1_200).toISOString());
        assert.match(
          receipts[0].error!.message,
          /^The process that ran the call \(pid \d+\) stopped/,
        );
      },
    );
  } finally {
    ours.release();
    kv.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("`releaseHandler()` lets go and writes the call's receipt in one write", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    const key = runningClaimKey("/p", "x", "x.run");

    await t.step("the claim goes and the receipt is written", async () => {
      const held = await claimHandler(kv, key, { now: 1_000, forMs: 500, receipt: started("r1") });
      await releaseHandler(kv, key, held!, {
        ...started("r1"),
        endedAt: "2030-01-01T00:00:00.000Z",
      });
      assert.equal((await kv.get(key)).value, null);
      assert.deepEqual((await listReceipts(kv, "/p")).map((r) => [r.id, r.outcome]), [[
        "r1",
        "ok",
      ]]);
    });

    await t.step("a call whose claim was taken over still leaves its own outcome", async () => {
      const held = await claimHandler(kv, key, { now: 2_000, forMs: 500, receipt: started("r2") });
      // It ran out (a machine that slept, say); another call took it over and called it interrupted.
      assert.ok(await claimHandler(kv, key, { now: 3_000, forMs: 500, receipt: started("r3") }));
      const failed: Receipt = {
        ...started("r2"),
        endedAt: new Date(3_100).toISOString(),
        outcome: "failed",
        error: { name: "HandlerTimeoutError", message: "ran too long" },
      };
      await releaseHandler(kv, key, held!, failed);
      assert.ok((await kv.get(key)).value, "the other call's claim stays");
      const r2 = (await listReceipts(kv, "/p")).find((r) => r.id === "r2");
      assert.equal(r2?.outcome, "failed", "the call's own outcome replaces interrupted");
    });
  } finally {
    kv.close();
  }
});

Deno.test("`recordInterruptedCalls()` leaves a receipt for every claim that no longer counts", async () => {
  const home = await Deno.makeTempDir({ prefix: "sync-claims-" });
  const kv = await Deno.openKv(":memory:");
  const ours = await ProcessLock.take(home);
  const gone = await ProcessLock.take(home);
  gone.release();
  try {
    const claim = (handler: string, id: string, lock: ProcessLock | undefined, now: number) =>
      claimHandler(kv, runningClaimKey("/p", "x", handler), {
        now,
        forMs: 500,
        receipt: started(id, handler),
        lock,
      });
    assert.ok(await claim("x.running", "r1", ours, 1_000));
    assert.ok(await claim("x.expired", "r2", undefined, 100));
    // A claim of a process that is gone (made while it ran, simulated with its mark).
    await kv.set(runningClaimKey("/p", "x", "x.killed"), {
      startedAt: 1_000,
      until: 1_500,
      renewedAt: 1_000,
      owner: gone.mark,
      receipt: started("r3", "x.killed"),
    });
    const written = await recordInterruptedCalls(kv, { now: 1_000, lock: ours });
    assert.deepEqual(written.map((r) => r.id).sort(), ["r2", "r3"]);
    assert.deepEqual(
      (await listReceipts(kv, "/p")).map((r) => [r.id, r.handler, r.outcome]),
      [["r3", "x.killed", "interrupted"], ["r2", "x.expired", "interrupted"]],
    );
    assert.ok(
      (await kv.get(runningClaimKey("/p", "x", "x.running"))).value,
      "a running call keeps its claim",
    );
    assert.equal((await kv.get(runningClaimKey("/p", "x", "x.killed"))).value, null);
    assert.deepEqual(await recordInterruptedCalls(kv, { now: 1_000, lock: ours }), [], "once");
  } finally {
    ours.release();
    kv.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("`Host.recordInterruptedCalls()` logs what it cannot look at and lets the process start", async () => {
  const home = await Deno.makeTempDir({ prefix: "sync-claims-" });
  const kv = await Deno.openKv(":memory:");
  const logs: string[] = [];
  const host = new Host({ kv, home, log: (line) => logs.push(line) });
  try {
    kv.close();
    assert.deepEqual(await host.recordInterruptedCalls(), []);
    assert.match(
      logs.join("\n"),
      /^Could not look for calls interrupted when their process stopped: /,
    );
  } finally {
    await host.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("`runningHandlers()` names the handlers of a package whose claims still count", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const now = 1_000_000;
    assert.ok(
      await claimHandler(kv, runningClaimKey("/p", "mail", "mail.sync"), { now, forMs: 60_000 }),
    );
    assert.ok(
      await claimHandler(kv, runningClaimKey("/p", "mail", "mail.send"), { now, forMs: 60_000 }),
    );
    assert.ok(
      await claimHandler(kv, runningClaimKey("/p", "feed", "feed.read"), { now, forMs: 60_000 }),
    );
    assert.ok(
      await claimHandler(kv, runningClaimKey("/q", "mail", "mail.sync"), { now, forMs: 60_000 }),
    );
    assert.deepEqual(await runningHandlers(kv, "/p", "mail", { now }), ["mail.send", "mail.sync"]);
    assert.deepEqual(await runningHandlers(kv, "/p", "none", { now }), []);
    // Past its term a claim no longer says its call runs.
    assert.deepEqual(await runningHandlers(kv, "/p", "mail", { now: now + 60_000 }), []);
  } finally {
    kv.close();
  }
});

Deno.test("`releaseHandler()` drops a package's oldest receipts past the number kept, as `writeReceipt()` does", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const key = runningClaimKey("/trimmed", "xx", "xx.run");
    const calls = RECEIPTS_KEPT + 100;
    for (let n = 0; n < calls; n++) {
      const id = `r${String(n).padStart(5, "0")}`;
      const receipt = { ...started(id, "xx.run"), project: "/trimmed", packageId: "xx" };
      const held = await claimHandler(kv, key, { now: 1_000 + n, forMs: 500, receipt });
      await releaseHandler(kv, key, held!, { ...receipt, endedAt: receipt.startedAt });
    }
    const kept = await listReceipts(kv, "/trimmed", { packageId: "xx", limit: 10_000 });
    // Trimming is occasional: never more than the slack past the number kept.
    assert.ok(kept.length <= RECEIPTS_KEPT + 50, `${kept.length} receipts kept`);
    assert.ok(kept.length >= RECEIPTS_KEPT, `${kept.length} receipts kept`);
    assert.equal(kept[0].id, `r${String(calls - 1).padStart(5, "0")}`, "the newest is kept");
  } finally {
    kv.close();
  }
});

Deno.test("`recordUnclaimedCall()` writes an ended call's receipt in place of a claim, as its claim would have been judged", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-unclaimed-" });
  const kv = await Deno.openKv(":memory:");
  const ours = await ProcessLock.take(home);
  const key = runningClaimKey("/p", "x", "x.run");
  const ended = (id: string): Receipt => ({
    ...started(id),
    endedAt: new Date(1_100).toISOString(),
  });
  /** Records the ended call `id` at `now`, as the process holding `lock`. */
  const record = (lock: ProcessLock, now: number, id: string) =>
    recordUnclaimedCall(kv, key, { now, forMs: 500, receipt: ended(id), lock });
  const claim = (lock: ProcessLock, now: number, id: string) =>
    claimHandler(kv, key, { now, forMs: 500, receipt: started(id), lock });
  try {
    await t.step("with no claim there, the receipt is written and no claim is left", async () => {
      assert.equal(
        await recordUnclaimedCall(kv, key, { now: 1_100, forMs: 500, receipt: ended("r1") }),
        true,
      );
      assert.deepEqual((await listReceipts(kv, "/p")).map((r) => [r.id, r.outcome]), [
        ["r1", "ok"],
      ]);
      assert.equal((await kv.get(key)).versionstamp, null);
    });

    await t.step(
      "a claim another running call holds refuses it, and nothing is written",
      async () => {
        const theirs = await ProcessLock.take(home);
        try {
          assert.ok(
            await claim(theirs, 1_200, "r2"),
          );
          assert.equal(
            await record(ours, 1_300, "r3"),
            false,
          );
          assert.deepEqual((await listReceipts(kv, "/p")).map((r) => r.id), ["r1"]);
        } finally {
          theirs.release();
        }
      },
    );

    await t.step(
      "once that call's process is gone, its claim becomes its interrupted receipt in the same write",
      async () => {
        assert.equal(
          await record(ours, 1_400, "r4"),
          true,
        );
        const receipts = await listReceipts(kv, "/p");
        assert.deepEqual(receipts.map((r) => [r.id, r.outcome]).sort(), [
          ["r1", "ok"],
          ["r2", "interrupted"],
          ["r4", "ok"],
        ]);
        assert.equal((await kv.get(key)).versionstamp, null, "the abandoned claim is let go of");
      },
    );
  } finally {
    ours.release();
    kv.close();
    await Deno.remove(home, { recursive: true });
  }
});
