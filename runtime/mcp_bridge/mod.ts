/**
 * `sync mcp`'s bridge: sync-mcp on stdio for an MCP client, carried to the
 * `/mcp` of the serve that owns the installation. It loads nothing of the
 * MCP server or the host, and no npm package: a client starts it on every
 * connect.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { BRIDGE_LIMITS } from "./bridge_limits.ts";
export type { BridgeLimits } from "./bridge_limits.ts";
export { bridgeStdio } from "./stdio_bridge.ts";
export type { BridgeOptions, BridgeTarget } from "./stdio_bridge.ts";
