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

/** Limits of the stdio bridge (`sync mcp`) between a client and the owner's `/mcp`. */
export interface BridgeLimits {
  /**
   * Messages held until the serve has answered the client's first
   * `initialize` (the `initialize` itself not counted); past it a request is
   * refused at once and a notification dropped.
   */
  maxHeld: number;
  /** Bytes of those messages (their JSON); past it the same. */
  maxHeldBytes: number;
  /**
   * Messages sent to the serve at once: a request counts until it is
   * answered, anything else until the serve has taken it. Each is one
   * connection to the owner's socket, whose queue of connections waiting to
   * be accepted is short.
   */
  maxInFlight: number;
  /**
   * Messages waiting for their turn once the session is open; at this many
   * (or `maxWaitingBytes`) the bridge stops reading stdin until half of them
   * have gone, so a client that writes faster than the serve answers waits.
   */
  maxWaiting: number;
  /** Bytes of the messages waiting for their turn; past it the same. */
  maxWaitingBytes: number;
  /**
   * How long the bridge waits before sending once more a message whose
   * connection the owner's socket turned away as busy, in ms.
   */
  busyRetryMs: number;
}

/** The limits of every stdio bridge. */
export const BRIDGE_LIMITS: Readonly<BridgeLimits> = Object.freeze({
  maxHeld: 256,
  maxHeldBytes: 8 * 1024 * 1024,
  maxInFlight: 8,
  maxWaiting: 256,
  maxWaitingBytes: 8 * 1024 * 1024,
  busyRetryMs: 50,
});
