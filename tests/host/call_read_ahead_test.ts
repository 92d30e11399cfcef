import assert from "node:assert/strict";
import type { IsolateCall, ReadAhead } from "../../runtime/isolate/mod.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import { testHost } from "../internal/packages.ts";

const CALL = { occasion: { kind: "extension" as const }, source: { kind: "person" as const } };

/** Lists the package's notes; told to, writes one first, or reads another record and fails. */
const SERVICE = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "memo.list": async (payload) => {
      if (payload?.fail) {
        await memory.record("memo.note/x");
        throw new Error("told to fail");
      }
      if (payload?.write) await memory.write({ key: "memo.note/" + payload.write, title: payload.write });
      const { records } = await memory.list({ kind: "memo.note" });
      return records.map((record) => record.title);
    },
  };
}
`;

Deno.test("`callHandler()` reads a handler's usual first reads ahead, as the call starts", async (t) => {
  const test = await testHost();
  await test.install({ id: "memo", handlers: ["memo.list"], service: SERVICE });
  const memory = await test.host.projectMemory(test.project);
  await writeRecord(memory, { key: "memo.note/a", title: "a" });
  // Each call's reads ahead, as the pool is given them: the real pool runs the call.
  const given: (ReadAhead[] | undefined)[] = [];
  const pool = test.host.pool;
  const call = pool.call.bind(pool);
  pool.call = (isolateCall: IsolateCall, hooks) => {
    given.push(isolateCall.ahead);
    return call(isolateCall, hooks);
  };
  const list = async (payload: unknown = null) =>
    (await test.host.callHandler(test.project, "memo", "memo.list", { ...CALL, payload })).value;
  try {
    await t.step("after two calls that began alike, the third is given their read", async () => {
      assert.deepEqual(await list(), ["a"]);
      assert.deepEqual(await list(), ["a"]);
      assert.deepEqual(given, [[], []]);
      assert.deepEqual(await list(), ["a"]);
      assert.deepEqual(given[2], [{ fn: "memory.list", args: '{"kind":"memo.note"}' }]);
    });

    await t.step(
      "a read ahead is made as its call starts: it sees what changed since",
      async () => {
        await writeRecord(memory, { key: "memo.note/b", title: "b" });
        assert.deepEqual(await list(), ["a", "b"]);
        assert.equal(given.at(-1)?.length, 1);
      },
    );

    await t.step("a call that writes before it reads sees its own write", async () => {
      assert.deepEqual(await list({ write: "c" }), ["a", "b", "c"]);
      assert.equal(given.at(-1)?.length, 1);
      assert.deepEqual(await list(), ["a", "b", "c"]);
    });

    await t.step("a call that began with a write teaches the next to read nothing ahead", () => {
      // The call that wrote first began with no read.
      assert.deepEqual(given.at(-1), []);
    });

    await t.step("a call that failed teaches nothing", async () => {
      await list();
      await list();
      await assert.rejects(list({ fail: true }), { name: "HandlerFailedError" });
      assert.deepEqual(await list(), ["a", "b", "c"]);
      assert.equal(given.at(-1)?.length, 1);
    });
  } finally {
    pool.call = call;
    await test.close();
  }
});
