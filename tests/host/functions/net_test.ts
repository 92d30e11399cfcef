import assert from "node:assert/strict";
import { InvalidInputError } from "../../../runtime/errors.ts";
import { net } from "../../../runtime/host/functions/net.ts";
import { runHostFunction } from "../../../runtime/host/host_function.ts";
import { DEFAULT_LIMITS } from "../../../runtime/limits.ts";
import { functionContext } from "../../internal/host_functions.ts";
import { testHost } from "../../internal/packages.ts";

Deno.test("`net.fetch()` runs with the call's hosts, timeout and size cap", async (t) => {
  let answer!: () => void;
  const held = new Promise<void>((resolve) => answer = resolve);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    if (new URL(request.url).pathname === "/held") await held;
    return new Response("hello");
  });
  const host = `127.0.0.1:${server.addr.port}`;
  const setup = await functionContext({
    id: "web",
    permissions: ["background", `net:${host}`],
    limits: { timeoutMs: 300, fetchTimeoutMs: 10_000, maxFetchBytes: 4 },
  });
  try {
    await t.step("the argument goes to netFetch as given, which checks its shape", async () => {
      assert.deepEqual(net.fetch.parse({ url: 3 }), { url: 3 });
      await assert.rejects(
        runHostFunction(net.fetch, { url: 3 }, setup.context),
        (error: Error) =>
          error instanceof InvalidInputError &&
          error.message === "net.fetch() needs { url } or a URL string",
      );
    });

    await t.step("the cap is the limits' maxFetchBytes", async () => {
      await assert.rejects(
        runHostFunction(net.fetch, `http://${host}/`, setup.context),
        {
          name: "PayloadTooLargeError",
          message: new RegExp(`from ${host} answered a body of more than 4`),
        },
      );
    });

    await t.step("it waits no longer than the call may run, when that is shorter", async () => {
      const started = performance.now();
      await assert.rejects(
        runHostFunction(net.fetch, `http://${host}/held`, setup.context),
        {
          name: "NetworkError",
          message: `could not reach ${host} (no answer within 300 ms)`,
        },
      );
      assert.ok(performance.now() - started < 5_000);
    });
  } finally {
    answer();
    await setup.close();
    await server.shutdown();
  }
});

Deno.test("`net.fetch()` from a handler takes a body up to the documented limit, whatever it holds", async (t) => {
  const limit = DEFAULT_LIMITS.maxFetchBytes;
  const bodies: Record<string, string> = {
    "/short-of-limit": "a".repeat(1_048_566),
    "/quotes": '"'.repeat(limit),
    "/controls": "\u0001".repeat(limit),
    "/two-byte": "é".repeat(limit / 2),
    "/over": "a".repeat(limit + 1),
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/big-headers") {
      return new Response("ok", {
        headers: { "x-big": "h".repeat(DEFAULT_LIMITS.maxFetchHeaderBytes) },
      });
    }
    return new Response(bodies[path]);
  });
  const host = `127.0.0.1:${server.addr.port}`;
  const env = await testHost();
  try {
    await env.install({
      id: "web",
      permissions: ["background", `net:${host}`],
      handlers: ["web.get"],
      service: `import { net } from "@sync/extension-api/service";
export default function register() {
  return {
    "web.get": async (path) => {
      try {
        const { status, body } = await net.fetch({ url: "http://${host}" + path });
        return { status, length: body.length, first: body.charCodeAt(0) };
      } catch (error) {
        return { error: error.name, message: error.message };
      }
    },
  };
}`,
    });
    const get = (path: string) => env.call("web", "web.get", path);
    for (
      const [path, char] of [
        ["/short-of-limit", "a"],
        ["/quotes", '"'],
        ["/controls", "\u0001"],
        ["/two-byte", "é"],
      ]
    ) {
      await t.step(`a body of ${path.slice(1)} within ${limit} bytes arrives whole`, async () => {
        assert.deepEqual(await get(path), {
          status: 200,
          length: bodies[path].length,
          first: char.charCodeAt(0),
        });
      });
    }
    await t.step("a body one byte over the limit is refused, naming the body's limit", async () => {
      assert.deepEqual(await get("/over"), {
        error: "PayloadTooLargeError",
        message: `net.fetch() from ${host} answered a body of more than ${limit} bytes; ` +
          `the limit is ${limit}`,
      });
    });
    await t.step("headers over their limit are refused, naming theirs", async () => {
      const answer = await get("/big-headers") as { error: string; message: string };
      assert.equal(answer.error, "PayloadTooLargeError");
      assert.match(
        answer.message,
        new RegExp(
          `answered headers of \\d+ bytes; the limit is ${DEFAULT_LIMITS.maxFetchHeaderBytes}`,
        ),
      );
    });
  } finally {
    await env.close();
    await server.shutdown();
  }
});
