import assert from "node:assert/strict";
import { IsolatePool } from "../../runtime/isolate/pool.ts";
import type { CallHooks, HostFunctionName, ReadAhead } from "../../runtime/isolate/mod.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../../runtime/limits.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

/** Handlers that read, and write, through the service API; each answers what it read. */
const SOURCE = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "ra.list": async () => (await memory.list({ kind: "ra.item" })).records,
    "ra.two": async () => [await memory.record("ra.item/a"), await memory.record("ra.item/b")],
    "ra.writeThenList": async () => {
      await memory.write({ key: "ra.item/new", title: "new" });
      return (await memory.list({ kind: "ra.item" })).records;
    },
    "ra.listAndWrite": async () => {
      const [page] = await Promise.all([
        memory.list({ kind: "ra.item" }),
        memory.write({ key: "ra.item/new", title: "new" }),
      ]);
      return page.records;
    },
  };
}
`;

const LIST: ReadAhead = { fn: "memory.list", args: '{"kind":"ra.item"}' };
const RECORD_A: ReadAhead = { fn: "memory.record", args: '"ra.item/a"' };

/** What the host side saw of one call: the host calls asked of it, and the reads made ahead. */
interface Seen {
  asked: string[];
  readAhead: string[];
  reads?: ReadAhead[];
}

/**
 * Hooks over a pretend memory: `ahead` answers what was read beside the call,
 * `host` what the handler asked; each tells what it answers apart.
 */
function hooks(
  seen: Seen,
  options: { aheadFails?: boolean; answerLimit?: number } = {},
): CallHooks {
  const answer = (from: string) => (fn: HostFunctionName, args: unknown) => {
    if (fn === "memory.write") return Promise.resolve({ key: "ra.item/new", revision: 1 });
    if (fn === "memory.list") return Promise.resolve({ records: [{ from }], cursor: null });
    return Promise.resolve({ key: args, from });
  };
  return {
    host: (fn, args) => {
      seen.asked.push(fn);
      return answer("host")(fn, args);
    },
    readAhead: (fn, args) => {
      seen.readAhead.push(fn);
      if (options.aheadFails) return Promise.reject(new Error("the memory could not be opened"));
      return answer("ahead")(fn, args);
    },
    readsMade: (reads) => seen.reads = reads,
    answerLimit: () => options.answerLimit,
  };
}

Deno.test("`IsolatePool.call()` answers a handler's first reads from the reads made ahead", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  const call = (
    handler: string,
    ahead: ReadAhead[],
    callHooks: CallHooks,
    limits?: HandlerLimits,
  ) =>
    pool.call({
      source: SOURCE,
      sourceName: "ra/service/index.js",
      packageId: "ra",
      handler,
      payload: null,
      occasion: { kind: "extension" },
      limits: limits ?? DEFAULT_LIMITS,
      ahead,
    }, callHooks);
  const fresh = (): Seen => ({ asked: [], readAhead: [] });
  try {
    await t.step("a read made ahead is not asked of the host", async () => {
      const seen = fresh();
      assert.deepEqual(await call("ra.list", [LIST], hooks(seen)), [{ from: "ahead" }]);
      assert.deepEqual(seen, { asked: [], readAhead: ["memory.list"], reads: [LIST] });
    });

    await t.step("a read that matches none is asked of the host, and learnt", async () => {
      const seen = fresh();
      assert.deepEqual(await call("ra.two", [RECORD_A], hooks(seen)), [
        { key: "ra.item/a", from: "ahead" },
        { key: "ra.item/b", from: "host" },
      ]);
      assert.deepEqual(seen.asked, ["memory.record"]);
      assert.deepEqual(seen.reads, [RECORD_A, { fn: "memory.record", args: '"ra.item/b"' }]);
    });

    await t.step("a read made after a write is asked of the host, and not learnt", async () => {
      const seen = fresh();
      assert.deepEqual(await call("ra.writeThenList", [LIST], hooks(seen)), [{ from: "host" }]);
      assert.deepEqual(seen.asked, ["memory.write", "memory.list"]);
      assert.equal(seen.reads, undefined);
    });

    await t.step("a read asked before a write, together with it, is answered ahead", async () => {
      const seen = fresh();
      assert.deepEqual(await call("ra.listAndWrite", [LIST], hooks(seen)), [{ from: "ahead" }]);
      assert.deepEqual(seen.asked, ["memory.write"]);
    });

    await t.step("a read ahead that failed is asked of the host", async () => {
      const seen = fresh();
      assert.deepEqual(await call("ra.list", [LIST], hooks(seen, { aheadFails: true })), [
        { from: "host" },
      ]);
      assert.deepEqual(seen.asked, ["memory.list"]);
    });

    await t.step("an answer over its limit is asked of the host, which refuses it", async () => {
      const seen = fresh();
      await rejectsWith(
        call("ra.list", [LIST], hooks(seen, { answerLimit: 10 })),
        "HandlerFailedError",
        /memory\.list\(\) answered \d+ bytes of JSON; the limit is 10/,
      );
      assert.deepEqual(seen.asked, ["memory.list"]);
    });

    await t.step("a read answered ahead counts against the call's host calls", async () => {
      const seen = fresh();
      await rejectsWith(
        call("ra.two", [RECORD_A], hooks(seen), { ...DEFAULT_LIMITS, maxHostCalls: 1 }),
        "HandlerFailedError",
        /at most 1 host calls/,
      );
      assert.deepEqual(seen.asked, []);
    });

    await t.step("without a readAhead hook nothing is read ahead", async () => {
      const seen = fresh();
      const { readAhead: _, ...asking } = hooks(seen);
      assert.deepEqual(await call("ra.list", [LIST], asking), [{ from: "host" }]);
      assert.deepEqual(seen.readAhead, []);
    });
  } finally {
    pool.close();
  }
});
