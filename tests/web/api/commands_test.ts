import assert from "node:assert/strict";
import {
  type CommandOutput,
  type CommandRequest,
  commandRoutes,
} from "../../../runtime/web/api/commands.ts";
import { createApp } from "../../../runtime/web/app.ts";
import { testHost } from "../../internal/packages.ts";

const TOKEN = "a1".repeat(24);

/** A runner that writes what it was sent, then a line to each stream, and exits 3. */
function echo(request: CommandRequest, output: CommandOutput): Promise<number> {
  output.out(JSON.stringify(request));
  output.err("to stderr");
  return Promise.resolve(3);
}

/** POSTs `body` to the route with `headers`. */
function post(routes: ReturnType<typeof commandRoutes>, body: unknown, headers: HeadersInit) {
  return routes.request("http://127.0.0.1/commands", {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const JSON_BEARER = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

Deno.test("`commandRoutes()` runs a command the CLI sends and streams back its lines", async (t) => {
  const routes = commandRoutes(TOKEN, echo);

  await t.step("the lines come back in order, the exit code last", async () => {
    const response = await post(
      routes,
      { args: ["list", "--project", "p"], cwd: "/home/ada" },
      JSON_BEARER,
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/x-ndjson");
    const lines = (await response.text()).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines, [
      { out: '{"args":["list","--project","p"],"cwd":"/home/ada"}' },
      { err: "to stderr" },
      { exit: 3 },
    ]);
  });

  await t.step("only the token as a Bearer header opens it", async () => {
    const body = { args: ["list"], cwd: "/" };
    const refused: Record<string, string>[] = [
      { "content-type": "application/json" },
      { "content-type": "application/json", cookie: `sync_token=${TOKEN}` },
      { "content-type": "application/json", authorization: `Bearer ${"b2".repeat(24)}` },
    ];
    for (const headers of refused) {
      assert.equal((await post(routes, body, headers)).status, 401, JSON.stringify(headers));
    }
  });

  await t.step("a body that is not JSON, or not the request, is refused saying what", async () => {
    const plain = await post(routes, "args=list", { ...JSON_BEARER, "content-type": "text/plain" });
    assert.equal(plain.status, 415);
    const cases: [unknown, RegExp][] = [
      ["{", /takes JSON/],
      [{ cwd: "/" }, /"args" must be the list of words/],
      [{ args: [1], cwd: "/" }, /"args" must be the list of words/],
      [{ args: [], cwd: "/" }, /"args" must hold from 1 to 256 words/],
      [{ args: ["list"], cwd: "relative" }, /"cwd" must be the absolute folder/],
    ];
    for (const [body, message] of cases) {
      const response = await post(routes, body, JSON_BEARER);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match((await response.json()).error, message);
    }
  });

  await t.step("a runner that throws still ends the stream with an exit code", async () => {
    const failing = commandRoutes(TOKEN, () => Promise.reject(new Error("broken")));
    const response = await post(failing, { args: ["list"], cwd: "/" }, JSON_BEARER);
    const lines = (await response.text()).trim().split("\n").map((l) => JSON.parse(l));
    assert.match(lines[0].err, /unexpected failure: Error: broken/);
    assert.deepEqual(lines.at(-1), { exit: 1 });
  });
});

Deno.test("`createApp()` serves the owner's commands only when given a runner, and only on the owner's socket", async (t) => {
  const env = await testHost();
  try {
    const request = () =>
      new Request("http://localhost/api/owner/commands", {
        method: "POST",
        headers: JSON_BEARER,
        body: JSON.stringify({ args: ["list"], cwd: "/" }),
      });
    await t.step("without a runner there is no such route", async () => {
      const without = createApp(env.host, { token: TOKEN, port: 4321 });
      assert.equal((await without.socketFetch(request())).status, 404);
    });
    const served = createApp(env.host, { token: TOKEN, port: 4321, commands: echo });
    await t.step("over the socket the command is run", async () => {
      const response = await served.socketFetch(request());
      assert.equal(response.status, 200);
      assert.match(await response.text(), /"exit":3/);
    });
    await t.step("over the port, with the token and the app's own Host, it is not", async () => {
      const overPort = new Request("http://127.0.0.1:4321/api/owner/commands", {
        method: "POST",
        headers: JSON_BEARER,
        body: JSON.stringify({ args: ["list"], cwd: "/" }),
      });
      const response = await served.fetch(overPort);
      assert.equal(response.status, 404);
      assert.match((await response.json()).error, /answered only on the socket/);
    });
    await t.step("over the socket, the token is still needed", async () => {
      const bare = new Request("http://localhost/api/owner/commands", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ args: ["list"], cwd: "/" }),
      });
      assert.equal((await served.socketFetch(bare)).status, 401);
    });
  } finally {
    await env.close();
  }
});
