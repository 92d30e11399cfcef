import assert from "node:assert/strict";
import { IsolatePool } from "../../runtime/isolate/pool.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

const WITH_API = `import { memory, console as apiConsole } from "@sync/extension-api/service";
export default function register() {
  return {
    "svc.look": async () => ({
      binding: Object.getOwnPropertyNames(globalThis).filter((name) => /sync/i.test(name)),
      list: typeof memory.list,
      frozen: Object.isFrozen(memory) && Object.isFrozen(memory.list),
      consoleIsTheApi: console === apiConsole,
      page: await memory.list({ kind: "svc.item" }),
    }),
  };
}
`;
const WITHOUT_API = `export default function register() {
  return {
    "svc.look": () => ({
      binding: Object.getOwnPropertyNames(globalThis).filter((name) => /sync/i.test(name)),
    }),
  };
}
`;
const ANOTHER_IMPORT = `import { memory } from "@sync/extension-api/service";
import { x } from "other";
export default function register() {
  return { "svc.look": () => ({ list: typeof memory.list, x }) };
}
`;

Deno.test("IsolatePool.call() answers alike whether or not the service module was loaded while the worker waited", async (t) => {
  // One worker: each call's context was made, and its service module loaded,
  // after the call before ended.
  const pool = new IsolatePool({ size: 1 });
  const asked: string[] = [];
  const call = (source: string) =>
    pool.call({
      source,
      sourceName: "svc/service/index.js",
      packageId: "svc",
      handler: "svc.look",
      payload: null,
      occasion: { kind: "extension" },
      limits: DEFAULT_LIMITS,
    }, {
      host: (fn) => {
        asked.push(fn);
        return Promise.resolve({ records: [] });
      },
    });
  const expected = {
    binding: [],
    list: "function",
    frozen: true,
    consoleIsTheApi: true,
    page: { records: [] },
  };
  try {
    await t.step("a module that imports it, after one that does not and after itself", async () => {
      assert.deepEqual(await call(WITHOUT_API), { binding: [] });
      assert.deepEqual(await call(WITH_API), expected);
      for (let i = 0; i < 3; i++) assert.deepEqual(await call(WITH_API), expected);
      assert.deepEqual(asked, ["memory.list", "memory.list", "memory.list", "memory.list"]);
    });

    await t.step(
      "a module that does not import it, after one that does, sees no binding",
      async () => {
        assert.deepEqual(await call(WITHOUT_API), { binding: [] });
      },
    );

    await t.step("any other import is still refused", async () => {
      await call(WITH_API);
      await rejectsWith(
        call(ANOTHER_IMPORT),
        Error,
        /Cannot import "other": a service module may import only "@sync\/extension-api\/service"/,
      );
      assert.deepEqual(await call(WITH_API), expected);
    });
  } finally {
    await pool.close();
  }
});
