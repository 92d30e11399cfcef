/**
 * What the work performer is given to raise an agent: how its program is
 * started (the seam where the process supervisor takes over), and what of
 * MCP its session is offered.
 *
 * @module
 */
import type { AgentSession } from "../agent_session.ts";
import type { AgentFacts, McpServer } from "./acp_session.ts";
import type { AgentPeer } from "./agent_peer.ts";
import type { AgentCommand } from "./spawn_agent.ts";

/**
 * Starts an agent's program in the project folder: the seam where the
 * process supervisor takes over from `spawnAgent`.
 *
 * @throws {Deno.errors.NotFound} (or an error naming the program) when the program is missing.
 */
export type AgentLauncher = (
  command: AgentCommand,
  options: { cwd: string; owner: string; onStderr?: (text: string) => void },
) => Promise<AgentPeer>;

/** What a session is offered of MCP, and how to end what was issued for it. */
export interface McpOffer {
  /** The servers, as ACP spells them. */
  servers: McpServer[];
  /** Called once the agent's process has ended: a token issued for the session dies with it. */
  release?: () => Promise<void>;
}

/**
 * The MCP servers a session is offered (`session/new`, `session/load`),
 * given what the agent takes (`agent.mcpHttp`): where `serve` offers
 * sync-mcp. None unless given.
 */
export type McpServersFor = (session: AgentSession, agent: AgentFacts) => Promise<McpOffer>;
