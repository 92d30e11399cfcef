import assert from "node:assert/strict";
import { testHost } from "../internal/packages.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

/**
 * Recursion of every shape QuickJS runs: plain calls, calls from inside the
 * engine's own functions (getters, `toJSON`, Proxy traps, `map`, `sort`,
 * `replace`, constructors, generators, async functions), and the engine's own
 * recursive functions over deep data (`JSON.stringify`, `JSON.parse`, `String`).
 */
const RECURSION: Record<string, string> = {
  plain: `const f = (n) => f(n + 1) + 1; return f(0);`,
  arguments:
    `const f = (a, b, c, d, e, g, h) => f(a, b, c, d, e, g, h) + 1; return f(1, 2, 3, 4, 5, 6, 7);`,
  getter: `const o = { get x() { return this.x + 1; } }; return o.x;`,
  toString: `const o = { toString() { return "" + o; } }; return "" + o;`,
  toJSON: `const o = { toJSON() { return JSON.stringify(o); } }; return JSON.stringify(o);`,
  proxy: `const p = new Proxy({}, { get(t, k) { return p[k]; } }); return p.x;`,
  map: `const f = (n) => [n].map(f); return f(0);`,
  apply: `const f = (n) => f.apply(null, [n + 1]); return f(0);`,
  sort: `const f = () => [2, 1].sort(() => f()); return f();`,
  replace: `const f = () => "a".replace(/a/, () => f()); return f();`,
  constructor: `class A { constructor() { new A(); } } return new A();`,
  generator: `function* g() { yield* g(); } return [...g()];`,
  async: `const f = async (n) => await f(n + 1); return f(0);`,
  tryFinally: `const f = (n) => { try { return f(n + 1); } finally { n++; } }; return f(0);`,
  stringify:
    `let a = []; for (let i = 0; i < 300000; i++) a = [a]; return JSON.stringify(a).length;`,
  stringifyObjects:
    `let a = {}; for (let i = 0; i < 300000; i++) a = { a }; return JSON.stringify(a).length;`,
  stringifyReplacer:
    `let a = []; for (let i = 0; i < 300000; i++) a = [a]; return JSON.stringify(a, (k, v) => v).length;`,
  parse: `return JSON.parse("[".repeat(300000) + "]".repeat(300000));`,
  join: `let a = []; for (let i = 0; i < 300000; i++) a = [a]; return String(a).length;`,
  flat: `let a = []; for (let i = 0; i < 300000; i++) a = [a]; return a.flat(Infinity).length;`,
  proxyChain: `let p = {}; for (let i = 0; i < 300000; i++) p = new Proxy(p, {}); return p.x;`,
};

const RECURSION_SERVICE = `export default function register() {
  return {
${
  Object.entries(RECURSION).map(([name, body]) => `    "deep.${name}": () => { ${body} },`).join(
    "\n",
  )
}
    "deep.depth": (n) => { const f = (k) => k === 0 ? 0 : f(k - 1) + 1; return f(n); },
    "deep.echo": (payload) => payload,
  };
}`;

const RECURSION_HANDLERS = [...Object.keys(RECURSION), "depth", "echo"].map((h) => `deep.${h}`);

Deno.test("deep recursion of any shape, under the default limits, fails its call with HandlerResourceError and the isolate serves on", async (t) => {
  // No limits passed: this is what every installation runs under.
  const env = await testHost();
  await env.installThenEdit({
    id: "deep",
    handlers: RECURSION_HANDLERS,
    service: RECURSION_SERVICE,
  });
  const limit = `limit ${DEFAULT_LIMITS.stackBytes / 1024} KiB`;
  try {
    for (const shape of Object.keys(RECURSION)) {
      await t.step(`${shape}: QuickJS's own stack cap stops it, naming the cap`, async () => {
        await rejectsWith(
          env.call("deep", `deep.${shape}`),
          "HandlerResourceError",
          new RegExp(`Handler deep\\.${shape} overflowed its stack \\(${limit}\\)`),
        );
        assert.deepEqual(await env.call("deep", "deep.echo", { after: shape }), { after: shape });
      });
    }
    await t.step("ordinary recursion a few hundred calls deep runs", async () => {
      assert.equal(await env.call("deep", "deep.depth", 200), 200);
    });
    await t.step("no attempt crashed a worker", () => {
      assert.equal(env.host.pool.replacedWorkers, 0);
    });
  } finally {
    await env.close();
  }
});

Deno.test("a stack cap set past what the worker's own stack holds still fails the call with HandlerResourceError", async () => {
  // More than the worker's native stack holds of QuickJS's frames: the
  // worker's stack runs out first, and the call must still end as a resource
  // error, not a crash.
  const env = await testHost({ limits: { stackBytes: 2 * 1024 * 1024 } });
  await env.installThenEdit({
    id: "deep",
    handlers: RECURSION_HANDLERS,
    service: RECURSION_SERVICE,
  });
  try {
    for (const shape of ["plain", "stringify", "generator"]) {
      await rejectsWith(
        env.call("deep", `deep.${shape}`),
        "HandlerResourceError",
        new RegExp(`Handler deep\\.${shape} overflowed its stack \\(the worker's own stack`),
      );
      assert.deepEqual(await env.call("deep", "deep.echo", [shape]), [shape]);
    }
    // The worker stayed; only its QuickJS instance was replaced.
    assert.equal(env.host.pool.replacedWorkers, 0);
  } finally {
    await env.close();
  }
});
