import assert from "node:assert/strict";
import { IsolatePool } from "../../runtime/isolate/pool.ts";

const SOURCE = `
export default function register() {
  return {
    "box.spin": () => {
      console.log("begun");
      let n = 0;
      for (let i = 0; i < 200000; i++) n += i % 7;
      return n;
    },
  };
}`;

Deno.test("`IsolatePool.call()` with `yieldTo` gives way while the flag is 1", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  try {
    const call = (yieldTo: Int32Array | undefined, begun: () => void) =>
      pool.call({
        source: SOURCE,
        sourceName: "box/service.js",
        packageId: "box",
        handler: "box.spin",
        payload: null,
        occasion: { type: "call" } as never,
        ...(yieldTo ? { yieldTo } : {}),
      }, {
        host: () => Promise.reject(new Error("no host calls here")),
        log: (_level, text) => {
          if (text === "begun") begun();
        },
      });

    await t.step("held, the handler's code waits; let go, it finishes", async () => {
      const flag = new Int32Array(new SharedArrayBuffer(4));
      Atomics.store(flag, 0, 1);
      const begun = Promise.withResolvers<void>();
      let settled = false;
      const answer = call(flag, begun.resolve).finally(() => settled = true);
      await begun.promise;
      // Its loop takes a few milliseconds when nothing holds it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(settled, false, "the handler ran on while held");
      Atomics.store(flag, 0, 0);
      Atomics.notify(flag, 0);
      assert.equal(await answer, expected());
    });

    await t.step("with the flag at 0, or none, it runs straight through", async () => {
      const flag = new Int32Array(new SharedArrayBuffer(4));
      assert.equal(await call(flag, () => {}), expected());
      assert.equal(await call(undefined, () => {}), expected());
    });
  } finally {
    pool.close();
  }
});

function expected(): number {
  let n = 0;
  for (let i = 0; i < 200000; i++) n += i % 7;
  return n;
}
