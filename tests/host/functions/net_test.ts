import assert from "node:assert/strict";
import { InvalidInputError } from "../../../runtime/errors.ts";
import { net } from "../../../runtime/host/functions/net.ts";
import { runHostFunction } from "../../../runtime/host/host_function.ts";
import { functionContext } from "../../internal/host_functions.ts";

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
        { name: "PayloadTooLargeError", message: new RegExp(`from ${host} answered more than 4`) },
      );
    });

    await t.step("it waits no longer than the call may run, when that is shorter", async () => {
      const started = performance.now();
      await assert.rejects(
        runHostFunction(net.fetch, `http://${host}/held`, setup.context),
        {
          name: "InvalidInputError",
          message: `net.fetch() to ${host} failed: no answer within 300 ms`,
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
