import assert from "node:assert/strict";
import { IsolatePool } from "../../runtime/isolate/pool.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../../runtime/limits.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

const SERVICE = `
export default function register() {
  return {
    // Each job queues the next, and each promise waits for the next one.
    "jobs.chain": () => { const f = () => Promise.resolve().then(f); f(); return 1; },
    // Each job queues the next and keeps nothing.
    "jobs.churn": () => { const f = () => { Promise.resolve().then(f); }; f(); return 1; },
    "jobs.neverWhileChurning": () => {
      const f = () => Promise.resolve().then(f);
      f();
      return new Promise(() => {});
    },
    "jobs.awaitForever": async () => { for (;;) await null; },
    "jobs.catchEverything": async () => {
      const f = () => Promise.resolve().then(f).catch(() => {});
      f();
      for (let i = 0; ; i++) {
        try { await null; } catch {}
      }
    },
    "jobs.manyThenDone": async () => {
      let n = 0;
      const step = () => (++n < 20000 ? Promise.resolve().then(step) : n);
      return await step();
    },
    "jobs.echo": (payload) => payload,
  };
}`;

/** Short, so that twenty calls stay quick, and memory room to spare for what a chain keeps in it. */
const LIMITS: HandlerLimits = {
  ...DEFAULT_LIMITS,
  timeoutMs: 300,
  memoryBytes: 256 * 1024 * 1024,
};

Deno.test("IsolatePool.call() takes an answer only once the call's job queue drains", async (t) => {
  // One worker: every call below runs in the same worker, one after another.
  const pool = new IsolatePool({ size: 1 });
  const call = (handler: string, limits = LIMITS, payload: unknown = {}) =>
    pool.call({
      source: SERVICE,
      sourceName: "jobs/service/index.js",
      packageId: "jobs",
      handler: `jobs.${handler}`,
      payload,
      occasion: { kind: "extension" },
      limits,
    }, { host: () => Promise.resolve(null) });
  const timesOut = async (handler: string) => {
    const started = performance.now();
    await rejectsWith(
      call(handler),
      "HandlerTimeoutError",
      `Handler jobs.${handler} ran past the 300 ms limit and was stopped`,
    );
    // The worker stopped the call itself: the host's own grace was not needed.
    const took = performance.now() - started;
    // The worker keeps its deadline in `Date.now()`'s whole milliseconds: up to 1 ms early here.
    assert.ok(took >= LIMITS.timeoutMs - 1, `it ended after ${took} ms, before the deadline`);
    assert.ok(took < LIMITS.timeoutMs + LIMITS.workerGraceMs, `it ended ${took} ms after it began`);
  };
  const stillServes = async () => {
    assert.deepEqual(await call("echo", LIMITS, { n: 1 }), { n: 1 });
    assert.equal(pool.replacedWorkers, 0);
  };
  try {
    await t.step(
      "a chain of promises that never ends fails with the timeout, 20 times of 20",
      async () => {
        const outcomes: string[] = [];
        for (let i = 0; i < 20; i++) {
          await call("chain").then(
            (value) => outcomes.push(`ok ${JSON.stringify(value)}`),
            (error: Error) => outcomes.push(`${error.name}: ${error.message}`),
          );
        }
        assert.deepEqual(
          outcomes,
          Array(20).fill(
            "HandlerTimeoutError: Handler jobs.chain ran past the 300 ms limit and was stopped",
          ),
        );
        await stillServes();
      },
    );

    await t.step("the call ends at its deadline, and the worker serves the next call", async () => {
      await timesOut("chain");
      await stillServes();
    });

    await t.step("jobs that keep nothing fail with the timeout too", async () => {
      await timesOut("churn");
      await stillServes();
    });

    await t.step(
      "a promise that never settles, while jobs run, fails with the timeout",
      async () => {
        await timesOut("neverWhileChurning");
        await stillServes();
      },
    );

    await t.step(
      "an async handler that awaits in a loop forever fails with the timeout",
      async () => {
        await timesOut("awaitForever");
        await timesOut("catchEverything");
        await stillServes();
      },
    );

    await t.step("a chain that reaches the memory cap first fails with it, never ok", async () => {
      const small = { ...LIMITS, timeoutMs: 60_000, memoryBytes: 8 * 1024 * 1024 };
      for (let i = 0; i < 3; i++) {
        await rejectsWith(
          call("chain", small),
          "HandlerResourceError",
          "Handler jobs.chain ran out of memory (limit 8 MiB) and was stopped",
        );
      }
      await stillServes();
    });

    await t.step("many jobs that end are all run, and the answer follows them", async () => {
      assert.equal(await call("manyThenDone", { ...LIMITS, timeoutMs: 10_000 }), 20000);
      await stillServes();
    });
  } finally {
    pool.close();
  }
});
