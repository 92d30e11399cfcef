/**
 * The limits of an agent session: how long an agent may take to answer
 * `initialize`, `session/new` and `session/load` and to honour a cancel,
 * how much of its output is kept, and how large a file it may
 * read or write through the client.
 *
 * @module
 */

/** The limits of an agent session; tests pass smaller ones where they wait. */
export const AGENT_LIMITS = {
  /**
   * How long an agent that has not answered `initialize` may say nothing (on
   * stdout or stderr) before the session fails.
   */
  initializeTimeoutMs: 30_000,
  /**
   * The same while npm is downloading the agent (`npx` on first use): npm
   * says nothing while one large archive arrives.
   */
  initializeDownloadQuietMs: 5 * 60_000,
  /** How long an agent may take to answer `initialize` in all, however much it writes meanwhile. */
  initializeMaxMs: 15 * 60_000,
  /** How often at most what an agent is doing is told to the pages watching, in ms. */
  activityEveryMs: 250,
  /** Characters of the agent's stderr told with what it is doing, from the end. */
  activityTailChars: 4_000,
  /** How long an agent may take to answer `session/new` or `session/load` before the session fails. */
  sessionTimeoutMs: 30_000,
  /** How long an agent may take to end its turn once cancelled before its process is stopped. */
  cancelGraceMs: 5_000,
  /** Characters of one transcript entry's text; longer text is cut, saying how much. */
  maxEntryChars: 16_000,
  /** Characters of an id the agent gives (a tool call's, a message's, a permission option's); longer ids are cut. */
  maxIdChars: 200,
  /** Characters of a title the agent gives a tool call or a permission; longer ones are cut. */
  maxTitleChars: 1_000,
  /** Characters of one path a tool call names; longer ones are cut. */
  maxPathChars: 1_000,
  /** Paths one tool call names; more are left out. */
  maxToolPaths: 20,
  /** Options one permission request offers; more are left out. */
  maxPermissionOptions: 16,
  /** Characters of a permission option's name. */
  maxOptionNameChars: 200,
  /** Characters of the agent's own session id; a longer one fails the session. */
  maxSessionIdChars: 1_000,
  /**
   * Characters of the agent's words (an error's message, each sign-in method's
   * name and description) put in a session's state; longer ones are cut.
   */
  maxAgentWordsChars: 2_000,
  /** Sign-in methods (and variables of one method) a waiting session's state keeps; more are left out. */
  maxSignInWays: 8,
  /** Characters of each of the agent's words in one sign-in way (its name, description, link). */
  maxSignInWordsChars: 300,
  /** A person's messages a session keeps waiting to be sent (the agent not ready); more are refused. */
  maxPendingTurns: 8,
  /** Characters of a session's reason (why it failed, how to sign in) kept in its state. */
  maxReasonChars: 8_000,
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
