import assert from "node:assert/strict";
import { testHost } from "../internal/packages.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { listRecords } from "../../runtime/memory/store.ts";
import { ISOLATE_GLOBALS } from "../../runtime/isolate/globals.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

const SERVICE = `
import { memory, work, net } from "@sync/extension-api/service";
export default function register() {
  return {
    "box.echo": (payload, occasion) => ({ payload, occasion }),
    "box.asyncEcho": async (payload) => { await null; return { payload, later: true }; },
    "box.nothing": () => {},
    "box.runaway": () => { while (true) {} },
    "box.allocate": () => { const a = []; for (;;) a.push(new Array(100000).fill("x")); },
    "box.recurse": () => { const f = (n) => f(n + 1) + 1; return f(0); },
    "box.never": () => new Promise(() => {}),
    "box.throw": () => { throw new TypeError("the tracker is down"); },
    "box.throwString": () => { throw "plain string"; },
    "box.throwNull": () => { throw null; },
    "box.throwPlainObject": () => { throw { code: 7 }; },
    "box.function": () => ({ callback() {} }),
    "box.cycle": () => { const a = { name: "a" }; a.self = a; return a; },
    "box.bigint": () => ({ count: 10n }),
    "box.map": () => ({ seen: new Map() }),
    "box.huge": () => "x".repeat(2 * 1024 * 1024),
    "box.globals": () => ({
      types: {
        fetch: typeof fetch, setTimeout: typeof setTimeout, setInterval: typeof setInterval,
        WebAssembly: typeof WebAssembly, TextDecoder: typeof TextDecoder, TextEncoder: typeof TextEncoder,
        Intl: typeof Intl, Deno: typeof Deno, process: typeof process, require: typeof require,
        window: typeof window, self: typeof self, importScripts: typeof importScripts,
        postMessage: typeof postMessage, queueMicrotask: typeof queueMicrotask, Atomics: typeof Atomics,
      },
      names: Object.getOwnPropertyNames(globalThis).sort(),
      binding: typeof globalThis.__syncBinding, surface: typeof globalThis.__syncSurface,
    }),
    "box.escape": () => {
      const found = [];
      const attempts = [
        () => memory.list.constructor("return this")(),
        () => (function () { return this; })(),
        () => Function("return globalThis")(),
        () => (async () => {}).constructor("return this")(),
        () => Object.getPrototypeOf(memory).constructor.constructor("return this")(),
        () => work.order.constructor.constructor("return this")(),
      ];
      for (const attempt of attempts) {
        const g = attempt();
        if (g && typeof g === "object") {
          for (const name of ["Deno", "fetch", "postMessage", "self", "__syncBinding", "__syncSurface", "WebAssembly", "process"]) {
            if (typeof g[name] !== "undefined") found.push(name);
          }
        }
      }
      return { found, frozen: Object.isFrozen(memory) && Object.isFrozen(memory.list) };
    },
    "box.write": async (payload) => memory.write(payload),
    "box.writeThenThrow": async () => {
      await memory.write({ key: "box.note/doomed", title: "never committed" });
      throw new Error("after writing");
    },
    "box.writeAndRead": async () => {
      await memory.write({ key: "box.note/a", title: "first", content: "hello" });
      const own = await memory.record("box.note/a");
      const text = await memory.content("box.note/a");
      const page = await memory.list({ kind: "box.note" });
      return { own, text, listed: page.records.map((r) => r.key) };
    },
    "box.read": async (key) => memory.record(key),
    "box.list": async (query) => memory.list(query),
    "box.order": async () => work.order({
      kind: "agent.session", agent: "demo", title: "Fix it", prompt: { text: "Fix the bug" },
      onInterrupted: "wait",
    }),
    "box.fetch": async (url) => net.fetch({ url }),
    "box.slowWrite": async (payload) => {
      await memory.write({ key: "box.note/slow", title: "slow" });
      let n = 0;
      for (let i = 0; i < payload.spins; i++) n += i;
      await memory.list({ kind: "box.note" });
      return n;
    },
    "box.awaitHostForever": async () => { for (;;) await memory.list({ kind: "box.note" }); },
  };
}`;

const HANDLERS = [
  "throwNull",
  "throwPlainObject",
  "echo",
  "asyncEcho",
  "nothing",
  "runaway",
  "allocate",
  "recurse",
  "never",
  "throw",
  "throwString",
  "function",
  "cycle",
  "bigint",
  "map",
  "huge",
  "globals",
  "escape",
  "write",
  "writeThenThrow",
  "writeAndRead",
  "read",
  "list",
  "order",
  "fetch",
  "slowWrite",
  "awaitHostForever",
].map((h) => `box.${h}`);

const OTHER_SERVICE = `
import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "other.seed": async () => {
      await memory.write({ key: "other.secret/1", title: "unpublished" });
      await memory.write({ key: "other.public/1", title: "published" });
    },
  };
}`;

Deno.test("Host.callHandler() runs handlers in the isolate and survives hostile ones", async (t) => {
  const env = await testHost({
    limits: {
      timeoutMs: 1_000,
      memoryBytes: 16 * 1024 * 1024,
      stackBytes: 256 * 1024,
      workerGraceMs: 1_000,
      // Low enough that a loaded machine reaches it well inside the time limit.
      maxHostCalls: 100,
    },
  });
  // Its hostile handlers are what check refuses, so it arrives as an edit after install.
  await env.installThenEdit({ id: "box", handlers: HANDLERS, service: SERVICE });
  await env.install({
    id: "other",
    handlers: ["other.seed"],
    service: OTHER_SERVICE,
    types: { "public.json": "other.public" },
  });
  const stillServes = async () => {
    assert.deepEqual(await env.call("box", "box.echo", { n: 1 }), {
      payload: { n: 1 },
      occasion: { kind: "extension" },
    });
  };

  try {
    await t.step("a handler gets its payload and occasion and answers JSON", async () => {
      await stillServes();
    });

    await t.step("an async handler's promise is settled before the answer is taken", async () => {
      assert.deepEqual(await env.call("box", "box.asyncEcho", [1, "two"]), {
        payload: [1, "two"],
        later: true,
      });
    });

    await t.step("a handler that returns nothing answers null", async () => {
      assert.equal(await env.call("box", "box.nothing"), null);
    });

    await t.step("a runaway loop fails its own call with a timeout", async () => {
      const started = performance.now();
      await rejectsWith(env.call("box", "box.runaway"), "HandlerTimeoutError", /1000 ms limit/);
      assert.ok(performance.now() - started < 5_000);
      await stillServes();
    });

    await t.step("an allocation bomb hits the memory cap", async () => {
      await rejectsWith(env.call("box", "box.allocate"), "HandlerResourceError", /out of memory/);
      await stillServes();
    });

    await t.step("deep recursion hits the stack cap", async () => {
      await rejectsWith(env.call("box", "box.recurse"), "HandlerResourceError", /stack/);
      await stillServes();
    });

    await t.step("a promise that never settles fails at once, not at the timeout", async () => {
      const started = performance.now();
      await rejectsWith(env.call("box", "box.never"), "HandlerFailedError", /never settles/);
      assert.ok(performance.now() - started < 900, "it should not wait for the timeout");
      await stillServes();
    });

    await t.step("a handler cannot flood the host with calls", async () => {
      await rejectsWith(
        env.call("box", "box.awaitHostForever"),
        "HandlerFailedError",
        /failed: one call may make at most 100 host calls/,
      );
      await stillServes();
    });

    await t.step("a throw fails the call with the handler's error", async () => {
      await rejectsWith(
        env.call("box", "box.throw"),
        "HandlerFailedError",
        /box\.throw failed: the tracker is down/,
      );
      await rejectsWith(
        env.call("box", "box.throwString"),
        "HandlerFailedError",
        /box\.throwString threw "plain string"$/,
      );
      await rejectsWith(
        env.call("box", "box.throwNull"),
        "HandlerFailedError",
        /box\.throwNull threw null$/,
      );
      await rejectsWith(
        env.call("box", "box.throwPlainObject"),
        "HandlerFailedError",
        /box\.throwPlainObject threw an object that is not an Error \(it has no name and no message\)$/,
      );
      await stillServes();
    });

    await t.step("junk answers are refused with the path of the junk", async () => {
      await rejectsWith(
        env.call("box", "box.function"),
        "InvalidValueError",
        /value\.callback is a function/,
      );
      await rejectsWith(
        env.call("box", "box.cycle"),
        "InvalidValueError",
        /value\.self refers back to itself/,
      );
      await rejectsWith(
        env.call("box", "box.bigint"),
        "InvalidValueError",
        /value\.count is a BigInt/,
      );
      await rejectsWith(env.call("box", "box.map"), "InvalidValueError", /value\.seen is a Map/);
      await stillServes();
    });

    await t.step("oversized payloads and answers are refused", async () => {
      await rejectsWith(
        env.call("box", "box.echo", "y".repeat(2 * 1024 * 1024)),
        "PayloadTooLargeError",
        /payload for box\.echo/,
      );
      await rejectsWith(env.call("box", "box.huge"), "PayloadTooLargeError", /returned \d+ bytes/);
      await stillServes();
    });

    await t.step("the isolate has no ambient capabilities", async () => {
      const answer = await env.call("box", "box.globals") as {
        types: Record<string, string>;
        names: string[];
        binding: string;
        surface: string;
      };
      for (const [name, type] of Object.entries(answer.types)) {
        assert.equal(type, "undefined", `${name} should be undefined in the isolate`);
      }
      assert.equal(answer.binding, "undefined");
      assert.equal(answer.surface, "undefined");
      assert.deepEqual(answer.names, [...ISOLATE_GLOBALS]);
    });

    await t.step("constructor chains reach only the isolate's own global", async () => {
      assert.deepEqual(await env.call("box", "box.escape"), { found: [], frozen: true });
    });

    await t.step("a call reads its own writes and commits them when it returns", async () => {
      const answer = await env.call("box", "box.writeAndRead") as {
        own: { key: string; title: string; revision: number };
        text: string;
        listed: string[];
      };
      assert.equal(answer.own.title, "first");
      assert.equal(answer.own.revision, 1);
      assert.equal(answer.text, "hello");
      assert.deepEqual(answer.listed, ["box.note/a"]);
      const memory = await env.host.projectMemory(env.project);
      const { records } = await listRecords(memory, { kind: "box.note" });
      assert.deepEqual(records.map((r) => [r.key, r.updatedBy]), [["box.note/a", "box"]]);
    });

    await t.step("a failed call commits nothing", async () => {
      await rejectsWith(
        env.call("box", "box.writeThenThrow"),
        "HandlerFailedError",
        /after writing/,
      );
      const memory = await env.host.projectMemory(env.project);
      const { records } = await listRecords(memory, { prefix: "box.note/doomed" });
      assert.equal(records.length, 0);
    });

    await t.step("a write outside the package's prefix is refused, saying why", async () => {
      await rejectsWith(
        env.call("box", "box.write", { key: "other.secret/2", title: "x" }),
        "HandlerFailedError",
        /failed: box cannot write other\.secret\/2: a package may write only kinds under "box\."/,
      );
    });

    await t.step(
      "another package's unpublished kind is refused; its published kind is read",
      async () => {
        await env.call("other", "other.seed");
        await rejectsWith(
          env.call("box", "box.read", "other.secret/1"),
          "HandlerFailedError",
          /box cannot read kind other\.secret/,
        );
        await rejectsWith(
          env.call("box", "box.list", { kind: "other.secret" }),
          "HandlerFailedError",
          /box cannot read kind other\.secret/,
        );
        const published = await env.call("box", "box.read", "other.public/1") as { title: string };
        assert.equal(published.title, "published");
        const listed = await env.call("box", "box.list", { prefix: "other." }) as {
          records: { key: string }[];
        };
        assert.deepEqual(listed.records.map((r) => r.key), ["other.public/1"]);
      },
    );

    await t.step("work.order without work.agent is refused, saying why when called", async () => {
      await rejectsWith(
        env.call("box", "box.order"),
        "HandlerFailedError",
        /failed: work\.order\(\) needs the work\.agent permission/,
      );
    });

    await t.step("net.fetch to an undeclared host is refused, saying why", async () => {
      await rejectsWith(
        env.call("box", "box.fetch", "https://example.com/"),
        "HandlerFailedError",
        /needs the net:example\.com permission/,
      );
    });

    await t.step("every attempt left a receipt", async () => {
      const receipts = await listReceipts(env.kv, env.project, { packageId: "box", limit: 500 });
      const failed = receipts.filter((r) => r.outcome === "failed");
      assert.ok(
        failed.some((r) => r.handler === "box.runaway" && r.error?.name === "HandlerTimeoutError"),
      );
      assert.ok(receipts.some((r) => r.handler === "box.echo" && r.outcome === "ok"));
      for (const r of receipts) {
        assert.equal(r.project, env.project);
        assert.ok(Date.parse(r.endedAt) >= Date.parse(r.startedAt));
      }
    });
  } finally {
    await env.close();
  }
});

const NET_SERVICE = `
import { net, memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "web.get": async (url) => {
      const response = await net.fetch({ url });
      await memory.write({ key: "web.page/last", title: String(response.status), content: response.body });
      return { status: response.status, body: response.body, type: response.headers["content-type"] };
    },
  };
}`;

Deno.test("net.fetch() reaches only declared hosts, within the call's deadline", async (t) => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/slow") await new Promise((resolve) => setTimeout(resolve, 3_000));
    if (path === "/big") return new Response("z".repeat(64 * 1024));
    return new Response(`hello from ${path}`, { headers: { "content-type": "text/plain" } });
  });
  const port = server.addr.port;
  // A port nothing listens on: taken, then given back.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closed = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const env = await testHost({
    limits: { timeoutMs: 800, workerGraceMs: 1_000, maxFetchBytes: 1024 },
  });
  try {
    await env.install({
      id: "web",
      handlers: ["web.get"],
      permissions: ["background", `net:127.0.0.1:${port}`, `net:127.0.0.1:${closed}`],
      service: NET_SERVICE,
    });
    await t.step("a host that refuses the connection fails in words, naming the host", async () => {
      await rejectsWith(
        env.call("web", "web.get", `http://127.0.0.1:${closed}/`),
        "HandlerFailedError",
        `Handler web.get failed: could not reach 127.0.0.1:${closed} ` +
          "(it refused the connection: is the server running?)",
      );
      const [receipt] = await listReceipts(env.kv, env.project, { packageId: "web", limit: 1 });
      assert.equal(receipt.error?.name, "HandlerFailedError");
      assert.equal(
        receipt.error?.message,
        `Handler web.get failed: could not reach 127.0.0.1:${closed} ` +
          "(it refused the connection: is the server running?)",
      );
    });
    await t.step("a declared host answers, and the call commits what it wrote", async () => {
      assert.deepEqual(await env.call("web", "web.get", `http://127.0.0.1:${port}/hi`), {
        status: 200,
        body: "hello from /hi",
        type: "text/plain",
      });
      const memory = await env.host.projectMemory(env.project);
      const { records } = await listRecords(memory, { kind: "web.page" });
      assert.equal(records[0].title, "200");
    });
    await t.step("the same host on another port is refused", async () => {
      await rejectsWith(
        env.call("web", "web.get", `http://127.0.0.1:${port + 1}/`),
        "HandlerFailedError",
        new RegExp(`needs the net:127\\.0\\.0\\.1:${port + 1} permission`),
      );
    });
    await t.step("a response over the size cap is refused", async () => {
      await rejectsWith(
        env.call("web", "web.get", `http://127.0.0.1:${port}/big`),
        "HandlerFailedError",
        /answered a body of more than 1024 bytes/,
      );
    });
    await t.step("a host that does not answer is cut off at the call's deadline", async () => {
      const started = performance.now();
      await assert.rejects(
        env.call("web", "web.get", `http://127.0.0.1:${port}/slow`),
        (error: Error) => {
          assert.match(error.name, /HandlerTimeoutError|HandlerFailedError/);
          assert.match(error.message, /800 ms/);
          return true;
        },
      );
      assert.ok(performance.now() - started < 2_500);
    });
  } finally {
    await env.close();
    await server.shutdown();
  }
});
