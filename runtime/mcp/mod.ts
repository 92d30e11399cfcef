/**
 * sync-mcp: what agents reach of a project through the Model Context
 * Protocol — its memory, work orders, the handlers its packages declare as
 * agent tools, and what each package tells an agent — over Streamable HTTP
 * at `/mcp` on the owner's app (`mcp_bridge/` carries it to stdio).
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { AgentMemory } from "./agent_memory.ts";
export type { AgentMemoryOptions } from "./agent_memory.ts";
export { orderWork, readWorkState } from "./agent_work.ts";
export type { OrderWorkOptions, WorkState } from "./agent_work.ts";
export { MCP_PATH, McpEndpoint } from "./mcp_endpoint.ts";
export type { McpEndpointOptions } from "./mcp_endpoint.ts";
export type { McpHost } from "./mcp_host.ts";
export { MCP_LIMITS } from "./mcp_limits.ts";
export type { McpLimits } from "./mcp_limits.ts";
export { BUILT_IN_TOOLS, readProjectOffer, toolNameOf } from "./project_offer.ts";
export type { HandlerTool, PackagePrompt, ProjectOffer } from "./project_offer.ts";
export { MCP_SERVER_INFO, ProjectServer } from "./project_server.ts";
export type { ProjectServerOptions } from "./project_server.ts";
export { digest, SessionTokenRegistry } from "./session_tokens.ts";
export type { SessionTokens } from "./session_tokens.ts";
