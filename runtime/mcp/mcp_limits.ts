/**
 * The limits of sync-mcp, stated once.
 *
 * @module
 */

/** Limits of sync-mcp's server and its HTTP endpoint. */
export interface McpLimits {
  /** Open sessions at once on `/mcp`; past it the one unused longest is closed. */
  maxSessions: number;
  /** A session unused this long (ms) is closed. */
  sessionIdleMs: number;
  /** Bytes of one request body on `/mcp`. */
  maxBodyBytes: number;
  /** Bytes of a package's prompt file an agent is given. */
  maxPromptBytes: number;
  /** Characters of a description sync-mcp writes itself. */
  maxDescriptionChars: number;
  /** Characters of an MCP client's name kept in a source. */
  maxClientNameChars: number;
}

/** The limits every sync-mcp server runs under. */
export const MCP_LIMITS: Readonly<McpLimits> = Object.freeze({
  maxSessions: 32,
  sessionIdleMs: 60 * 60 * 1000,
  maxBodyBytes: 1024 * 1024,
  maxPromptBytes: 64 * 1024,
  maxDescriptionChars: 1000,
  maxClientNameChars: 100,
});
