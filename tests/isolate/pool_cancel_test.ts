import assert from "node:assert/strict";
import { IsolatePool } from "../../runtime/isolate/pool.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../../runtime/limits.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

const SERVICE = `
export default function register() {
  return {
    "spin.forever": () => { console.log("spinning"); for (;;) {} },
    "spin.echo": (payload) => payload,
  };
}`;

/** Long, so that only the cancel can end the call while the test runs. */
const LIMITS: HandlerLimits = { ...DEFAULT_LIMITS, timeoutMs: 60_000 };

Deno.test("`IsolatePool.call()` abandons a call whose `cancel` signal aborts", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  const call = (handler: string, hooks: { cancel?: AbortSignal; log?: () => void } = {}) =>
    pool.call({
      source: SERVICE,
      sourceName: "spin/service/index.js",
      packageId: "spin",
      handler: `spin.${handler}`,
      payload: { n: 1 },
      occasion: { kind: "agent" },
      limits: LIMITS,
    }, { host: () => Promise.resolve(null), ...hooks });
  try {
    await t.step("a loop that never yields is stopped, and its worker replaced", async () => {
      const cancel = new AbortController();
      // Aborted once the handler says it runs: the call is inside the loop then.
      const running = call("forever", { cancel: cancel.signal, log: () => cancel.abort() });
      await rejectsWith(running, "CancelledError", /spin\.forever was cancelled by its caller/);
      assert.equal(pool.replacedWorkers, 1);
    });

    await t.step("a call cancelled before it runs never runs", async () => {
      let ran = false;
      await rejectsWith(
        call("forever", { cancel: AbortSignal.abort(), log: () => ran = true }),
        "CancelledError",
        /cancelled by its caller/,
      );
      assert.equal(ran, false);
      assert.equal(pool.replacedWorkers, 1);
    });

    await t.step("the pool serves the next call", async () => {
      assert.deepEqual(await call("echo"), { n: 1 });
    });
  } finally {
    pool.close();
  }
});
