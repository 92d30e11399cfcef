/**
 * What an ACP session needs of the agent's process: its stdin and stdout, how
 * it ended, the tail of its stderr, and a way to stop it. The process
 * supervisor's processes have this shape; {@linkcode spawnAgent} makes one
 * with `Deno.Command`.
 *
 * @module
 */

/** How an agent's process ended. */
export interface AgentExit {
  /** The exit code; by convention 128 + the signal's number when a signal ended it. */
  code: number;
  /** The signal that ended it, such as `SIGKILL`, or null when it exited by itself. */
  signal?: string | null;
}

/** A running agent process, as the ACP session speaks to it. */
export interface AgentPeer {
  /** The agent's stdin: the session writes JSON-RPC lines to it. */
  stdin: WritableStream<Uint8Array>;
  /** The agent's stdout: JSON-RPC lines, and whatever else the agent prints. */
  stdout: ReadableStream<Uint8Array>;
  /**
   * Resolves once the process has ended and its stderr has been read to the
   * end, so that {@linkcode AgentPeer.stderrTail} then holds its last words.
   */
  exited: Promise<AgentExit>;
  /** The last of what the agent wrote on stderr (bounded), as text. */
  stderrTail(): string;
  /** Stops the process (SIGTERM, then SIGKILL); resolves when it has ended. */
  stop(): Promise<void>;
}
