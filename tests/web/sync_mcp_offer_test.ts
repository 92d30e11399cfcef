import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { AgentSession } from "../../runtime/agent_session.ts";
import { type AgentFacts, readSession, readTranscript } from "../../runtime/agents/mod.ts";
import { listReceipts } from "../../runtime/host/mod.ts";
import { installPackage } from "../../runtime/lifecycle/mod.ts";
import { SESSION_LIMITS } from "../../runtime/limits.ts";
import { McpEndpoint, SessionTokenRegistry } from "../../runtime/mcp/mod.ts";
import { installationToken } from "../../runtime/projects/mod.ts";
import type { TranscriptEntry } from "../../runtime/transcript.ts";
import type { Source } from "../../runtime/types.ts";
import type { ChatSessionResponse } from "../../runtime/web/api/chat_types.ts";
import { createApp } from "../../runtime/web/app.ts";
import { serve } from "../../runtime/web/serve.ts";
import { syncMcpOffer } from "../../runtime/web/sync_mcp_offer.ts";
import { testHost } from "../internal/packages.ts";
import { commitOrder, performerOver, waitForSession } from "../internal/sessions.ts";
import { initializeRequest, mcpPostHeaders } from "../internal/mcp_initialize.ts";

const SESSION: AgentSession = {
  key: "work-1",
  project: "/projects/p q",
  agent: "claude-code",
  agentSessionId: null,
  orderKey: "work-1",
  extensionId: "triage",
  extensionName: "Triage",
  source: {
    kind: "handler",
    extensionId: "triage",
    extensionName: "Triage",
    handler: "triage.sweep",
  },
  title: "Triage",
  state: "running",
  waitingFor: null,
  onInterrupted: "continue",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  error: null,
  keptAs: null,
};

const FACTS: AgentFacts = {
  info: null,
  protocolVersion: 1,
  loadSession: true,
  mcpHttp: true,
  authMethods: [],
};

Deno.test("`syncMcpOffer()` offers /mcp with a token of the session's own", async (t) => {
  const tokens = new SessionTokenRegistry();

  await t.step("an agent that takes HTTP gets the endpoint, its project, and a token", async () => {
    const offer = await syncMcpOffer(tokens, 4321, SESSION, FACTS);
    assert.equal(offer.servers.length, 1);
    const server = offer.servers[0];
    assert.ok("type" in server && server.type === "http");
    assert.equal(server.name, "sync");
    assert.equal(server.url, "http://127.0.0.1:4321/mcp?project=%2Fprojects%2Fp+q");
    const bearer = server.headers.find((h) => h.name === "Authorization")?.value ?? "";
    const token = bearer.replace(/^Bearer /, "");
    assert.deepEqual(await tokens.sourceOf(token), {
      kind: "agent",
      name: "claude-code",
      workKey: "work-1",
      extensionId: "triage",
    });
    await offer.release?.();
    assert.equal(await tokens.sourceOf(token), null, "the token ends with the agent");
  });

  await t.step("an agent that takes only stdio is offered nothing", async () => {
    const offer = await syncMcpOffer(tokens, 4321, SESSION, { ...FACTS, mcpHttp: false });
    assert.deepEqual(offer.servers, []);
  });
});

/** A registry that remembers the tokens it issued, so a test can try them after. */
class WatchedTokens extends SessionTokenRegistry {
  issued: string[] = [];

  override async issue(source: Source, project: string): Promise<string> {
    const token = await super.issue(source, project);
    this.issued.push(token);
    return token;
  }
}

/** The first tool call with `title`, and the status and text its updates ended with. */
function toolCall(entries: TranscriptEntry[], title: string) {
  const call = entries.find((entry) => entry.kind === "tool_call" && entry.title === title);
  if (call?.kind !== "tool_call") return null;
  let { status, text } = call;
  for (const entry of entries) {
    if (entry.kind !== "tool_call_update" || entry.toolCallId !== call.toolCallId) continue;
    status = entry.status ?? status;
    text = entry.text ?? text;
  }
  return { status, text };
}

/** What the demo agent said in its reply, joined. */
function replyOf(entries: TranscriptEntry[]): string {
  return entries.map((entry) => entry.kind === "message" ? entry.text : "").join("");
}

/** Calls a tool and answers its JSON; fails when the tool answered an error. */
async function callJson(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text?: string }[])
    .map((block) => block.text ?? "").join("");
  assert.notEqual(result.isError, true, `${name} failed: ${text}`);
  return JSON.parse(text);
}

const HELLO = fileURLToPath(new URL("../../extensions/hello", import.meta.url));

Deno.test("`serve()` offers the demo agent sync-mcp, which it uses as its session", async (t) => {
  const env = await testHost({ readsWorkState: true });
  await installPackage(env.host, HELLO, env.project, { approve: true });
  await Deno.mkdir(env.home, { recursive: true });
  const tokens = new WatchedTokens();
  const lines: string[] = [];
  const controller = new AbortController();
  const serving = serve(env.host, {
    port: 0,
    log: (line) => lines.push(line),
    signal: controller.signal,
    sessionTokens: tokens,
  });
  let client: Client | undefined;
  try {
    let port = 0;
    for (let tries = 0; tries < 200 && port === 0; tries++) {
      const said = lines.find((line) => line.startsWith("Sync is serving at "));
      port = Number(said?.match(/:(\d+)\//)?.[1] ?? 0);
      if (port === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.notEqual(port, 0, lines.join("\n"));
    const token = await installationToken(env.home);
    const origin = `http://127.0.0.1:${port}`;

    await t.step("a conversation that asks for hello_greet calls it through sync-mcp", async () => {
      const response = await fetch(`${origin}/api/chat/sessions`, {
        method: "POST",
        headers: {
          cookie: `sync_token_${port}=${token}`,
          origin,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          project: env.project,
          agent: "demo",
          text: 'Greet Ada: tool hello_greet {"name":"Ada"} no-permission',
        }),
      });
      const begun = await response.json() as ChatSessionResponse;
      assert.equal(response.status, 200, JSON.stringify(begun));
      const key = begun.session.key;
      await waitForSession(env.kv, env.project, key, (s) => s.state === "ended");
      const { entries } = await readTranscript(env.kv, env.project, key);
      const listed = toolCall(entries, "sync-mcp (sync)");
      assert.equal(listed?.status, "completed", JSON.stringify(entries));
      assert.match(listed?.text ?? "", /hello_greet/);
      const called = toolCall(entries, "hello_greet");
      assert.equal(called?.status, "completed", JSON.stringify(entries));
      assert.match(replyOf(entries), /hello_greet answered: .*Hello, Ada!/);

      const [receipt] = await listReceipts(env.kv, env.project, { packageId: "hello", limit: 1 });
      assert.equal(receipt.handler, "hello.greet");
      assert.equal(receipt.outcome, "ok");
      assert.deepEqual(receipt.occasion, { kind: "agent" });
      assert.deepEqual(receipt.source, { kind: "agent", name: "demo", workKey: key });
      assert.equal(tokens.issued.length, 1);
      assert.deepEqual(await tokens.sourceOf(tokens.issued[0]), receipt.source);
    });

    await t.step("work_order is performed at once, and work_state follows it", async () => {
      const url = new URL(`${origin}/mcp`);
      url.searchParams.set("project", env.project);
      client = new Client({ name: "test-client", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const ordered = await callJson(client, "work_order", {
        kind: "agent.session",
        agent: "demo",
        title: "Say hello",
        prompt: { text: "Say hello, no-permission" },
        onInterrupted: "wait",
      }) as { key: string; state: string };
      assert.equal(ordered.state, "ordered");
      const seen = new Set<string>();
      for (let tries = 0; tries < 600 && !seen.has("ended"); tries++) {
        const { state } = await callJson(client, "work_state", { key: ordered.key }) as {
          state: string;
        };
        seen.add(state);
        if (state === "failed") break;
        if (state !== "ended") await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(seen.has("ended"), `work_state answered ${[...seen].join(", ")}`);
      const session = await readSession(env.kv, env.project, ordered.key);
      assert.equal(session?.state, "ended");
    });

    await t.step("when serve stops, its agents end and their tokens with them", async () => {
      await client?.close();
      client = undefined;
      assert.equal(tokens.issued.length, 2);
      controller.abort();
      await serving;
      for (const issued of tokens.issued) assert.equal(await tokens.sourceOf(issued), null);
    });
  } finally {
    await client?.close().catch(() => {});
    controller.abort();
    await serving.catch(() => {});
    await env.close();
  }
});

Deno.test("a session's token dies with its agent: a later call with it is refused", async (t) => {
  const env = await testHost({ readsWorkState: true });
  await installPackage(env.host, HELLO, env.project, { approve: true });
  const tokens = new WatchedTokens();
  let port = 0;
  const work = performerOver(env.host, {
    mcpServersFor: (session, agent) => syncMcpOffer(tokens, port, session, agent),
    limits: { ...SESSION_LIMITS, idleAgentMs: 100 },
  });
  const mcp = new McpEndpoint(env.host, { token: "t".repeat(48), sessionTokens: tokens });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.fetch(request),
  );
  port = server.addr.port;
  const app = createApp(env.host, { token: "t".repeat(48), port, work, mcp });
  try {
    const order = await commitOrder(await env.host.projectMemory(env.project), env.project, {
      key: "work-greet",
      prompt: { text: 'tool hello_greet {"name":"Bo"} no-permission' },
    });

    await t.step("an ordered session's call carries the order and its extension", async () => {
      await work.scan(env.project);
      await waitForSession(env.kv, env.project, order.key, (s) => s.state === "ended");
      const [receipt] = await listReceipts(env.kv, env.project, { packageId: "hello", limit: 1 });
      assert.deepEqual(receipt.occasion, { kind: "agent" });
      assert.deepEqual(receipt.source, {
        kind: "agent",
        name: "demo",
        workKey: "work-greet",
        extensionId: "tester",
      });
    });

    await t.step("once the agent has stopped, /mcp refuses its token", async () => {
      const [token] = tokens.issued;
      for (let tries = 0; tries < 200 && await tokens.sourceOf(token) !== null; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const response = await fetch(`http://127.0.0.1:${port}/mcp?project=${env.project}`, {
        method: "POST",
        headers: mcpPostHeaders(token),
        body: initializeRequest("late"),
      });
      assert.equal(response.status, 401, await response.text());
    });
  } finally {
    await work.stop();
    await mcp.close();
    await server.shutdown();
    await env.close();
  }
});
