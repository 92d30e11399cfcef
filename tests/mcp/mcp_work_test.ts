import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createSession } from "../../runtime/agents/mod.ts";
import { WORK_ORDER_LIMITS } from "../../runtime/limits.ts";
import { McpEndpoint } from "../../runtime/mcp/mod.ts";
import { createApp } from "../../runtime/web/app.ts";
import { listWorkOrders } from "../../runtime/work/mod.ts";
import { type PackageSpec, testHost } from "../internal/packages.ts";
import { callError, callJson } from "./_scenario.ts";

const TOKEN = "installation-token-for-tests";

/** A package whose handler orders work for the agent its payload names. */
const ORDERER: PackageSpec = {
  id: "orderer",
  permissions: ["background", "work.agent"],
  handlers: ["orderer.order"],
  service: `import { work } from "@sync/extension-api/service";
export default function register() {
  return {
    "orderer.order": async ({ agent }) =>
      (await work.order({
        kind: "agent.session", agent, title: "Look", prompt: { text: "Look" }, onInterrupted: "wait",
      })).key,
  };
}
`,
  manifest: { handlers: { "orderer.order": { description: "Orders work" } } },
};

/** An order through `work_order`, for `agent`. */
function orderFor(agent: string) {
  return {
    kind: "agent.session",
    agent,
    title: "Fix the flaky test",
    prompt: { text: "Find out why it fails" },
    onInterrupted: "wait",
  };
}

Deno.test("`work_order` and `work.order()` refuse an agent the installation does not define", async (t) => {
  const env = await testHost({ definesAgents: true, readsWorkState: true });
  const mcp = new McpEndpoint(env.host, { token: TOKEN });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.fetch(request),
  );
  const app = createApp(env.host, { token: TOKEN, port: server.addr.port, mcp });
  const client = new Client({ name: "work-test", version: "1.0.0" });
  try {
    await env.install(ORDERER);
    const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
    url.searchParams.set("project", env.project);
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const memory = await env.host.projectMemory(env.project);

    await t.step("work_order names the agents that are defined, and writes nothing", async () => {
      const text = await callError(client, "work_order", orderFor("nobody"));
      assert.match(text, /no agent is named "nobody"/);
      assert.match(text, /the agents defined are [^.]*\bclaude-code\b[^.]*\bdemo\b/);
      assert.match(text, /add the agent in the Agents section of Sync's start page$/);
      assert.equal((await listWorkOrders(memory)).length, 0);
    });

    await t.step("work_order tells agents that nothing resumes by itself", async () => {
      const { tools } = await client.listTools();
      const schema = tools.find((tool) => tool.name === "work_order")?.inputSchema as {
        properties: Record<string, { description?: string }>;
      };
      const words = schema.properties.onInterrupted.description ?? "";
      assert.match(words, /nothing resumes by itself: a person presses Continue in Chat/);
      assert.doesNotMatch(words, /when Sync runs again/);
    });

    await t.step("work_order takes a defined agent", async () => {
      const ordered = await callJson(client, "work_order", orderFor("demo")) as { key: string };
      assert.match(ordered.key, /^work-/);
    });

    await t.step(
      "work.order() in a handler refuses it too, and the call commits nothing",
      async () => {
        await assert.rejects(
          () => env.call("orderer", "orderer.order", { agent: "nobody" }),
          /no agent is named "nobody"; the agents defined are/,
        );
        assert.equal((await listWorkOrders(memory, { extensionId: "orderer" })).length, 0);
        const key = await env.call("orderer", "orderer.order", { agent: "demo" });
        assert.match(String(key), /^work-/);
      },
    );
  } finally {
    await client.close();
    await mcp.close();
    await server.shutdown();
    await env.close();
  }
});

Deno.test("`work_state` says why the session performing an order failed", async (t) => {
  const env = await testHost({ definesAgents: true, readsWorkState: true });
  const mcp = new McpEndpoint(env.host, { token: TOKEN });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.fetch(request),
  );
  const app = createApp(env.host, { token: TOKEN, port: server.addr.port, mcp });
  const client = new Client({ name: "work-test", version: "1.0.0" });
  try {
    const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
    url.searchParams.set("project", env.project);
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const { key } = await callJson(client, "work_order", orderFor("demo")) as { key: string };
    /** Writes the pointer of the session performing the order, as the performer does. */
    const performed = (state: "running" | "failed", message?: string) =>
      createSession(env.kv, {
        key,
        project: env.project,
        agent: "demo",
        agentSessionId: null,
        orderKey: key,
        extensionId: null,
        extensionName: null,
        source: { kind: "agent", name: "work-test" },
        title: "Fix the flaky test",
        state,
        waitingFor: null,
        onInterrupted: "wait",
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
        error: message ? { name: "AgentFailedError", message } : null,
        keptAs: null,
      });

    await t.step("a failed session's reason, cut to a bound", async () => {
      const long = "The agent demo could not start: the program was not found. " + "x".repeat(5000);
      await performed("failed", long);
      const state = await callJson(client, "work_state", { key }) as Record<string, string>;
      assert.equal(state.state, "failed");
      assert.match(state.reason, /^The agent demo could not start: the program was not found\./);
      assert.ok(
        state.reason.length <= WORK_ORDER_LIMITS.maxReasonChars,
        `${state.reason.length} characters`,
      );
      assert.match(state.reason, /cut: /);
    });
  } finally {
    await client.close();
    await mcp.close();
    await server.shutdown();
    await env.close();
  }
});
