/**
 * The limits of the stdio bridge, stated once.
 *
 * @module
 */

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
