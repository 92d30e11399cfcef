import assert from "node:assert/strict";
import { IsolatePool } from "../../runtime/isolate/pool.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../../runtime/limits.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

/**
 * What one call can leave behind in its context, and what a later call looks
 * at. `dirty` leaves something of every kind: globals, additions to the
 * built-in prototypes, replaced built-ins (including the ones the worker
 * itself uses to pass values in and out), module state, and a promise that
 * never settles.
 */
function service(id: string): string {
  return `import { memory, console as apiConsole } from "@sync/extension-api/service";
let calls = 0;
function look(payload, sum) {
  return {
    sum,
    calls: ++calls,
    payloadProto: Object.getPrototypeOf(payload) === Object.prototype,
    leftGlobal: typeof globalThis.leftGlobal,
    pending: typeof globalThis.pending,
    onObject: typeof ({}).leftOnObject,
    onArray: typeof [].leftOnArray,
    onFunction: typeof (() => {}).leftOnFunction,
    onPromise: typeof Promise.resolve().leftOnPromise,
    trim: " x ".trim(),
    parse: JSON.parse("[1]"),
    stringify: JSON.stringify([1]),
    frozen: Object.isFrozen(Object.freeze({})),
    onSurface: typeof memory.leftOnSurfaceProto,
    surfaceFrozen: Object.isFrozen(memory),
    consoleIsTheApi: console === apiConsole,
    names: Object.getOwnPropertyNames(globalThis).length,
  };
}
export default function register() {
  return {
    "${id}.dirty": () => {
      calls++;
      globalThis.leftGlobal = "${id}";
      Object.prototype.leftOnObject = "${id}";
      Array.prototype.leftOnArray = "${id}";
      Function.prototype.leftOnFunction = "${id}";
      Promise.prototype.leftOnPromise = "${id}";
      String.prototype.trim = () => "tampered by ${id}";
      JSON.parse = () => "tampered by ${id}";
      JSON.stringify = () => "tampered by ${id}";
      Object.freeze = (o) => o;
      Object.getPrototypeOf(memory).leftOnSurfaceProto = "${id}";
      globalThis.console = { log() {} };
      globalThis.pending = new Promise(() => {});
      return { calls };
    },
    // It awaits, then works past the point where QuickJS checks its deadline:
    // a job left queued by an earlier call that loops for good would run
    // first and use up the deadline, and this call would fail for it.
    "${id}.look": async (payload) => {
      await null;
      let sum = 0;
      for (let i = 0; i < 100000; i++) sum += i;
      return look(payload, sum);
    },
    // Its answer queues a job while it is being sent, after the call's last
    // turn of the job queue.
    "${id}.leaveJob": () => ({
      toJSON() {
        Promise.resolve().then(() => { for (;;) {} });
        return { left: "a job" };
      },
    }),
    // Getters and toJSON run while the answer is encoded, by the encoder the
    // runtime keeps: what they can reach of their caller, they try to spoil.
    "${id}.reachEncoder": () => {
      const reach = Function(
        "return function () { const c = arguments.callee.caller; if (c) { " +
          "const F = Object.getPrototypeOf(c).constructor; F('return Array')().prototype.push = () => 0; " +
          "F('return JSON')().stringify = () => '\\"spoilt\\"'; } return 1; }",
      )();
      const value = {};
      Object.defineProperty(value, "got", { get: reach, enumerable: true });
      return { value, asJSON: { toJSON: reach } };
    },
    // Finalizers on targets that outlive the call only through its own
    // context (its globals, or cycles the collector has not reached yet),
    // when the context offers them at all. Were one to run in a later call,
    // that call would loop until stopped.
    "${id}.leaveFinalizers": () => {
      if (typeof FinalizationRegistry === "undefined") return { offered: false };
      const registry = new FinalizationRegistry(() => { for (;;) {} });
      for (let i = 0; i < 50; i++) {
        const target = { i };
        target.self = target;
        registry.register(target, i);
        if (i % 2) globalThis["kept" + i] = target;
      }
      globalThis.registry = registry;
      return { offered: true };
    },
    // Makes cyclic garbage, so the collector runs and frees what it can,
    // with a finalizer of its own when it may: the collector then looks at
    // every finalizer the runtime still holds.
    "${id}.collect": async () => {
      if (typeof FinalizationRegistry !== "undefined") {
        const registry = new FinalizationRegistry(() => {});
        (() => { const target = {}; target.self = target; registry.register(target, 0); })();
      }
      await null;
      let garbage = [];
      for (let i = 0; i < 200000; i++) {
        const o = {};
        o.self = o;
        garbage.push(o);
        if (garbage.length > 1000) garbage = [];
      }
      await null;
      return { collected: true };
    },
    "${id}.allocate": () => { const a = []; for (;;) a.push(new Array(100000).fill("x")); },
    "${id}.runaway": () => { for (;;) {} },
  };
}
`;
}

const LIMITS: HandlerLimits = { ...DEFAULT_LIMITS, timeoutMs: 2_000 };

const CLEAN_LOOK = {
  sum: 4999950000,
  calls: 1,
  payloadProto: true,
  leftGlobal: "undefined",
  pending: "undefined",
  onObject: "undefined",
  onArray: "undefined",
  onFunction: "undefined",
  onPromise: "undefined",
  trim: "x",
  parse: [1],
  stringify: "[1]",
  frozen: true,
  onSurface: "undefined",
  surfaceFrozen: true,
  consoleIsTheApi: true,
};

Deno.test("IsolatePool.call() gives every call a fresh context: nothing one call leaves is seen by the next", async (t) => {
  // One worker, so every call below runs in the same worker, one after another.
  const pool = new IsolatePool({ size: 1 });
  const call = (id: string, handler: string, payload: unknown = {}) =>
    pool.call({
      source: service(id),
      sourceName: `${id}/service/index.js`,
      packageId: id,
      handler: `${id}.${handler}`,
      payload,
      occasion: { kind: "extension" },
      limits: LIMITS,
    }, { host: () => Promise.resolve({ records: [] }) });
  const look = async (id: string) => {
    const seen = await call(id, "look") as Record<string, unknown>;
    const { names, ...rest } = seen;
    return { names, rest };
  };
  try {
    const clean = await look("alpha");
    assert.deepEqual(clean.rest, CLEAN_LOOK);

    await t.step(
      "globals, prototypes, built-ins and the surface are new for the same package",
      async () => {
        assert.deepEqual(await call("alpha", "dirty"), { calls: 1 });
        assert.deepEqual(await look("alpha"), clean);
      },
    );

    await t.step("and for another package", async () => {
      assert.deepEqual(await call("alpha", "dirty"), { calls: 1 });
      assert.deepEqual(await look("bravo"), clean);
    });

    await t.step("module state starts again at every call", async () => {
      assert.deepEqual(await call("alpha", "dirty"), { calls: 1 });
      assert.deepEqual(await call("alpha", "dirty"), { calls: 1 });
    });

    await t.step("a job a call leaves queued never runs in a later call", async () => {
      assert.deepEqual(await call("alpha", "leaveJob"), { left: "a job" });
      assert.deepEqual(await look("alpha"), clean);
      assert.deepEqual(await look("bravo"), clean);
    });

    await t.step("a finalizer a call leaves never runs in a later call", async () => {
      // A context lingers until the collector frees it, and would run its
      // finalizers then, in whatever call is running: none is offered.
      const collected = { collected: true };
      const left = [];
      for (let round = 0; round < 4; round++) {
        left.push(await call("alpha", "leaveFinalizers"));
        assert.deepEqual(await call("alpha", "collect"), collected);
        assert.deepEqual(await call("bravo", "collect"), collected);
      }
      assert.deepEqual(await look("alpha"), clean);
      assert.deepEqual(left, Array(4).fill({ offered: false }));
    });

    await t.step(
      "what a call's getters and toJSON reach while its answer is sent stays its own",
      async () => {
        assert.deepEqual(await call("alpha", "reachEncoder"), { value: { got: 1 }, asJSON: 1 });
        assert.deepEqual(await look("bravo"), clean);
      },
    );

    await t.step("a call that ran out of memory leaves the next call unaffected", async () => {
      await call("alpha", "dirty");
      await rejectsWith(call("alpha", "allocate"), "HandlerResourceError", /out of memory/);
      assert.deepEqual(await look("alpha"), clean);
      assert.deepEqual(await look("bravo"), clean);
    });

    await t.step("a call stopped at its deadline leaves the next call unaffected", async () => {
      await call("bravo", "dirty");
      await rejectsWith(call("bravo", "runaway"), "HandlerTimeoutError", /2000 ms/);
      assert.deepEqual(await look("bravo"), clean);
      assert.deepEqual(await look("alpha"), clean);
    });

    await t.step("no call needed a worker replaced", () => {
      assert.equal(pool.replacedWorkers, 0);
    });
  } finally {
    pool.close();
  }
});
