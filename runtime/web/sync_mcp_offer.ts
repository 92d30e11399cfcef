/**
 * What an agent session Sync starts is offered of sync-mcp: the `/mcp`
 * endpoint of this serve, for the session's project, with a token issued
 * for that session only — so what the agent does through it is attributed
 * to the session's source (the agent, the work it performs, the extension
 * that ordered it) — and revoked when the agent's process ends.
 *
 * Offered to an agent that takes MCP servers over HTTP (it advertises
 * `mcpCapabilities.http`); an agent that takes only stdio is offered none,
 * since the stdio bridge speaks with the installation's own token.
 *
 * @module
 */
import type { AgentSession } from "../agent_session.ts";
import type { AgentFacts, McpOffer } from "../agents/mod.ts";
import { MCP_PATH, type SessionTokenRegistry } from "../mcp/mod.ts";
import type { Source } from "../types.ts";

/**
 * The sync-mcp offer for one session.
 *
 * @param tokens Where the session's token is issued, and revoked.
 * @param port The port this serve answers on.
 * @param session The session's pointer.
 * @param agent What the agent said of itself.
 * @returns The server entry and how to revoke its token, or no server.
 */
export async function syncMcpOffer(
  tokens: SessionTokenRegistry,
  port: number,
  session: AgentSession,
  agent: AgentFacts,
): Promise<McpOffer> {
  if (!agent.mcpHttp || port === 0) return { servers: [] };
  const source: Source = {
    kind: "agent",
    name: session.agent,
    workKey: session.orderKey ?? session.key,
    ...(session.extensionId ? { extensionId: session.extensionId } : {}),
  };
  const token = await tokens.issue(source, session.project);
  const url = new URL(`http://127.0.0.1:${port}${MCP_PATH}`);
  url.searchParams.set("project", session.project);
  return {
    servers: [{
      type: "http",
      name: "sync",
      url: url.href,
      headers: [{ name: "Authorization", value: `Bearer ${token}` }],
    }],
    release: () => tokens.revoke(token),
  };
}
