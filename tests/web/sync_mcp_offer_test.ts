import assert from "node:assert/strict";
import type { AgentSession } from "../../runtime/agent_session.ts";
import type { AgentFacts } from "../../runtime/agents/mod.ts";
import { SessionTokenRegistry } from "../../runtime/mcp/mod.ts";
import { syncMcpOffer } from "../../runtime/web/sync_mcp_offer.ts";

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
