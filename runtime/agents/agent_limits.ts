/**
 * The limits of an agent session: how long an agent may take to answer
 * `initialize`, how much of its output is kept, and how large a file it may
 * read or write through the client.
 *
 * @module
 */

/** The limits of an agent session; tests pass smaller ones where they wait. */
export const AGENT_LIMITS = {
  /** How long an agent may take to answer `initialize` before the session fails. */
  initializeTimeoutMs: 30_000,
  /** Characters of one transcript entry's text; longer text is cut, saying how much. */
  maxEntryChars: 16_000,
  /** Entries of one plan; more are left out, saying how many. */
  maxPlanEntries: 50,
  /** Bytes of stderr kept, from its end. */
  stderrTailBytes: 8 * 1024,
  /** Lines the agent printed on stdout that were not JSON-RPC, kept from the last. */
  maxNoiseLines: 20,
  /** Characters kept of one such line. */
  maxNoiseLineChars: 500,
  /** Bytes of one line on stdout the client reads as JSON-RPC; a longer line is noise. */
  maxMessageBytes: 32 * 1024 * 1024,
  /** Bytes of one file an agent may read or write through the client. */
  maxFileBytes: 16 * 1024 * 1024,
} as const;
