import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolResultSchema, GetPromptResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { listReceipts } from "../../runtime/host/mod.ts";
import { installPackage } from "../../runtime/lifecycle/mod.ts";
import { McpEndpoint, SessionTokenRegistry } from "../../runtime/mcp/mod.ts";
import type { Source } from "../../runtime/types.ts";
import { createApp } from "../../runtime/web/app.ts";
import { listWorkOrders } from "../../runtime/work/mod.ts";
import { testHost } from "../internal/packages.ts";
import { exists } from "../internal/cli.ts";
import { callJson, exerciseClient, TOOLS_PACKAGE, writeLaterPackage } from "./_scenario.ts";
import { join } from "node:path";
import { initializeRequest, mcpPostHeaders } from "../internal/mcp_initialize.ts";

const TOKEN = "installation-token-for-tests";

/** The app with `/mcp`, served on a port of its own, and a client's way in. */
async function servedApp() {
  const env = await testHost({ limits: { timeoutMs: 300 } });
  await env.install(TOOLS_PACKAGE);
  const sessionTokens = new SessionTokenRegistry();
  const mcp = new McpEndpoint(env.host, { token: TOKEN, sessionTokens });
  // No request comes before the app is made: the port is known only once listening.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.fetch(request),
  );
  const port = server.addr.port;
  const app = createApp(env.host, { token: TOKEN, port, mcp });
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  url.searchParams.set("project", env.project);
  async function connect(token: string, name = "test-client"): Promise<Client> {
    const client = new Client({ name, version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }
  return {
    env,
    app,
    port,
    url,
    mcp,
    sessionTokens,
    connect,
    async close() {
      await mcp.close();
      await server.shutdown();
      await env.close();
    },
  };
}

Deno.test("`McpEndpoint` serves sync-mcp over Streamable HTTP to the SDK's client", async (t) => {
  const served = await servedApp();
  try {
    const client = await served.connect(TOKEN);
    try {
      await exerciseClient(t, client, {
        seed: async () => {
          await served.env.call("tools", "tools.seed");
        },
        installLater: async () => {
          const dir = await writeLaterPackage(join(served.env.home, "..", "packages"));
          await installPackage(served.env.host, dir, served.env.project, { approve: true });
          return dir;
        },
      });
      await t.step("a call with the installation's token is a person's agent's", async () => {
        const [receipt] = await listReceipts(served.env.kv, served.env.project, {
          packageId: "tools",
          limit: 1,
        });
        assert.equal(receipt.handler, "tools.spin");
        assert.deepEqual(receipt.occasion, { kind: "agent" });
        assert.deepEqual(receipt.source, { kind: "agent", name: "test-client" });
        const memory = await served.env.host.projectMemory(served.env.project);
        const [order] = await listWorkOrders(memory);
        assert.deepEqual(order.source, { kind: "agent", name: "test-client" });
        assert.equal(order.extensionId, undefined);
      });
    } finally {
      await client.close();
    }
  } finally {
    await served.close();
  }
});

Deno.test("`McpEndpoint` attributes a session token's calls to that session's source", async (t) => {
  const served = await servedApp();
  try {
    const source: Source = {
      kind: "agent",
      name: "claude-code",
      workKey: "work-0000000001",
      extensionId: "issues",
    };
    const token = await served.sessionTokens.issue(source, served.env.project);
    const client = await served.connect(token, "claude-code-acp");
    try {
      await t.step("the token opens its session's project only", async () => {
        const elsewhere = await Deno.makeTempDir({ prefix: "sync-elsewhere-" });
        try {
          const url = new URL(`http://127.0.0.1:${served.port}/mcp`);
          url.searchParams.set("project", elsewhere);
          const response = await fetch(url, {
            method: "POST",
            headers: mcpPostHeaders(token),
            body: initializeRequest(),
          });
          assert.equal(response.status, 403);
          const body = await response.json();
          assert.match(
            body.error.message,
            /given to an agent session in .*; it opens no other project/,
          );
          assert.ok(!(await exists(join(elsewhere, ".sync"))), "nothing written there");
        } finally {
          await Deno.remove(elsewhere, { recursive: true });
        }
      });
      await t.step("the receipt of a handler tool carries the session's source", async () => {
        await callJson(client, "tools_echo", { text: "from a session" });
        const [receipt] = await listReceipts(served.env.kv, served.env.project, { limit: 1 });
        assert.equal(receipt.handler, "tools.echo");
        assert.deepEqual(receipt.occasion, { kind: "agent" });
        assert.deepEqual(receipt.source, source);
      });
      await t.step("work the session orders carries the session's source", async () => {
        const { key } = await callJson(client, "work_order", {
          kind: "agent.session",
          agent: "gemini",
          title: "Review",
          prompt: { text: "Review the change" },
          onInterrupted: "continue",
        }) as { key: string };
        const memory = await served.env.host.projectMemory(served.env.project);
        const order = (await listWorkOrders(memory)).find((o) => o.key === key)!;
        assert.deepEqual(order.source, source);
      });
      await t.step("a revoked token is refused, and its session with it", async () => {
        await served.sessionTokens.revoke(token);
        await assert.rejects(() => served.connect(token), /401|token/i);
        await assert.rejects(() => client.listTools());
      });
    } finally {
      await client.close().catch(() => {});
    }
  } finally {
    await served.close();
  }
});

/** The JSON-RPC error a raw request is answered with; fails the test when it is answered. */
async function refusalOf(
  client: Awaited<ReturnType<Awaited<ReturnType<typeof servedApp>>["connect"]>>,
  method: string,
  params: unknown,
  schema: never,
): Promise<Error & { code?: number }> {
  try {
    await client.request({ method, params } as never, schema);
  } catch (error) {
    return error as Error & { code?: number };
  }
  assert.fail(`${method} ${JSON.stringify(params)} answered`);
}

Deno.test("`McpEndpoint` answers params that do not fit their method as invalid params", async (t) => {
  const served = await servedApp();
  try {
    const client = await served.connect(TOKEN);
    const refusal = (method: string, params: unknown, schema: never) =>
      refusalOf(client, method, params, schema);
    try {
      await t.step("tools/call with arguments null names arguments", async () => {
        const error = await refusal(
          "tools/call",
          { name: "memory_list", arguments: null },
          CallToolResultSchema as never,
        );
        assert.equal(error.code, -32602);
        assert.match(
          error.message,
          /Invalid params for tools\/call: arguments must be an object, not null$/,
        );
      });
      await t.step("tools/call with arguments a string says which string", async () => {
        const error = await refusal(
          "tools/call",
          { name: "tools_echo", arguments: "junk" },
          CallToolResultSchema as never,
        );
        assert.equal(error.code, -32602);
        assert.match(error.message, /arguments must be an object, not the string "junk"$/);
        assert.doesNotMatch(error.message, /"code"|invalid_type/);
      });
      await t.step("tools/call without a name, and prompts/get with one of 3", async () => {
        const nameless = await refusal(
          "tools/call",
          { arguments: {} },
          CallToolResultSchema as never,
        );
        assert.equal(nameless.code, -32602);
        assert.match(nameless.message, /name is missing; it must be a string$/);
        const prompt = await refusal("prompts/get", { name: 3 }, GetPromptResultSchema as never);
        assert.equal(prompt.code, -32602);
        assert.match(prompt.message, /name must be a string, not number 3$/);
      });
      await t.step("the session goes on", async () => {
        assert.deepEqual(await callJson(client, "tools_echo", { text: "still" }), {
          text: "still",
          occasion: "agent",
        });
      });
    } finally {
      await client.close();
    }
  } finally {
    await served.close();
  }
});

Deno.test("`McpEndpoint` answers a tool or prompt it does not offer as unknown, whatever every object inherits", async (t) => {
  const served = await servedApp();
  try {
    const client = await served.connect(TOKEN);
    const refusal = (method: string, params: unknown, schema: never) =>
      refusalOf(client, method, params, schema);
    const inherited = [
      ...new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__", "nope"]),
    ];
    try {
      await t.step(`tools/call of each of ${inherited.length} names`, async () => {
        for (const name of inherited) {
          // A tool's failure is its answer, as for any tool call that fails.
          const answer = await client.callTool({ name, arguments: {} });
          assert.equal(answer.isError, true, name);
          assert.deepEqual(answer.content, [{
            type: "text",
            text: `sync-mcp offers no tool named ${
              JSON.stringify(name)
            } in this project; list them with tools/list`,
          }]);
        }
      });
      await t.step(`prompts/get of each of ${inherited.length} names`, async () => {
        for (const name of inherited) {
          const error = await refusal("prompts/get", { name }, GetPromptResultSchema as never);
          assert.equal(error.code, -32602, name);
          assert.match(error.message, new RegExp(`offers no prompt named "${name}"`));
        }
      });
      await t.step("no refusal repeats its code inside its message", async () => {
        // The SDK's client puts "MCP error <code>: " in front of the server's message itself.
        const prompt = await refusal(
          "prompts/get",
          { name: "nope" },
          GetPromptResultSchema as never,
        );
        assert.equal(
          prompt.message,
          'MCP error -32602: sync-mcp offers no prompt named "nope" in this project; ' +
            "list them with prompts/list",
        );
        const invalid = await client.callTool({ name: "tools_echo", arguments: { text: 3 } });
        assert.equal(invalid.isError, true);
        const text = (invalid.content as { text: string }[])[0].text;
        assert.match(text, /text/);
        assert.doesNotMatch(text, /MCP error|-32602/);
      });
      await t.step("no call reached a handler, and the tools it offers answer", async () => {
        assert.deepEqual(
          await listReceipts(served.env.kv, served.env.project, { packageId: "tools" }),
          [],
        );
        assert.deepEqual(await callJson(client, "tools_echo", { text: "still" }), {
          text: "still",
          occasion: "agent",
        });
        const listed = await client.callTool({ name: "memory_list", arguments: {} });
        assert.notEqual(listed.isError, true);
      });
    } finally {
      await client.close();
    }
  } finally {
    await served.close();
  }
});

Deno.test("`createApp`'s `/mcp` refuses what its guards refuse: the app's as the app's, its own as JSON-RPC errors", async (t) => {
  const served = await servedApp();
  const { app, port, url } = served;
  const initialize = initializeRequest();
  const headers = (more: Record<string, string> = {}) => ({
    host: `127.0.0.1:${port}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${TOKEN}`,
    ...more,
  });
  const post = (init: { headers?: Record<string, string>; body?: string; path?: string }) =>
    app.request(init.path ?? `${url.pathname}${url.search}`, {
      method: "POST",
      headers: init.headers ?? headers(),
      body: init.body ?? initialize,
    });
  async function rpcError(response: Response, status: number): Promise<string> {
    assert.equal(response.status, status);
    const body = await response.json();
    assert.equal(body.jsonrpc, "2.0");
    return body.error.message;
  }
  try {
    await t.step("without a token", async () => {
      const { authorization: _, ...rest } = headers();
      assert.match(await rpcError(await post({ headers: rest }), 401), /Bearer/);
    });
    await t.step("with a wrong token", async () => {
      const response = await post({ headers: headers({ authorization: "Bearer wrong" }) });
      assert.match(await rpcError(response, 401), /token/);
    });
    await t.step("from a foreign Host, by the app's guard, in the app's shape", async () => {
      const response = await post({ headers: headers({ host: `evil.example:${port}` }) });
      assert.equal(response.status, 403);
      assert.deepEqual(await response.json(), {
        error: `Host evil.example:${port} is not this app's address (127.0.0.1:${port})`,
      });
    });
    await t.step("from a foreign Origin: a POST by the app's guard, a GET by /mcp's", async () => {
      const response = await post({ headers: headers({ origin: "http://evil.example" }) });
      assert.equal(response.status, 403);
      assert.deepEqual(await response.json(), {
        error: "Requests from http://evil.example may not change anything here",
      });
      const get = await app.request(`${url.pathname}${url.search}`, {
        headers: headers({ origin: "http://evil.example" }),
      });
      assert.match(await rpcError(get, 403), /evil\.example/);
    });
    await t.step("with a body past the cap", async () => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", pad: "x".repeat(2e6) });
      assert.match(await rpcError(await post({ body }), 413), /bytes/);
    });
    await t.step("with a body that is not JSON-RPC", async () => {
      const response = await post({ body: "{not json" });
      assert.equal(response.status, 400);
      const parsed = await response.json();
      assert.equal(parsed.error.code, -32700);
      const notRpc = await post({ body: JSON.stringify({ hello: "world" }) });
      assert.equal(notRpc.status, 400);
      assert.equal((await notRpc.json()).error.code, -32700);
    });
    await t.step("without a project, or with a folder that is not there", async () => {
      assert.match(
        await rpcError(await post({ path: "/mcp" }), 400),
        /^project: required: the project folder's absolute path$/,
      );
      const gone = `/mcp?project=${encodeURIComponent("/nowhere/at/all")}`;
      assert.equal((await post({ path: gone })).status, 400);
    });
    await t.step("with a session nobody opened", async () => {
      const response = await post({ headers: headers({ "mcp-session-id": "made-up" }) });
      assert.match(await rpcError(response, 404), /initialize a new one/);
    });
    await t.step("a session is used only with the token it was opened with", async () => {
      const response = await post({});
      assert.equal(response.status, 200);
      const session = response.headers.get("mcp-session-id")!;
      await response.body?.cancel();
      const other = await served.sessionTokens.issue(
        { kind: "agent", name: "other" },
        served.env.project,
      );
      const borrowed = await post({
        headers: headers({ "mcp-session-id": session, authorization: `Bearer ${other}` }),
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
      assert.equal(borrowed.status, 404);
      await borrowed.body?.cancel();
    });
  } finally {
    await served.close();
  }
});
