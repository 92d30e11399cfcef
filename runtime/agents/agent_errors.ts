/**
 * The errors of an agent session. They are domain errors (`SyncError`s): a
 * work order that fails records the message, and Chat shows it with the
 * stderr tail kept beside it.
 *
 * @module
 */
import { SyncError } from "../errors.ts";
import type { AgentExit } from "./agent_peer.ts";

/** What {@linkcode AgentFailedError} keeps beside its message. */
export interface AgentFailure {
  /** The last of the agent's stderr; empty when it wrote none. */
  stderrTail?: string;
  /** How the process ended, when it has. */
  exit?: AgentExit | null;
  /** The JSON-RPC error code, when the agent answered a request with an error. */
  code?: number;
}

/**
 * The agent could not do what it was asked: it did not answer `initialize`
 * in time, exited or closed its output, or answered a request with an error
 * (its own words are in the message). The message ends with the stderr tail
 * when there is one.
 */
export class AgentFailedError extends SyncError {
  /** `"AgentFailedError"`: the name receipts, reports and the API show with the message. */
  override name = "AgentFailedError";
  /** The last of the agent's stderr; empty when it wrote none. */
  readonly stderrTail: string;
  /** How the process ended, or null while it runs. */
  readonly exit: AgentExit | null;
  /** The JSON-RPC error code, when the agent answered with an error. */
  readonly code?: number;
  /**
   * Keeps the stderr tail, the exit and the error code beside the message.
   *
   * @param message What failed and why.
   * @param failure The stderr tail, the exit and the error code.
   */
  constructor(message: string, failure: AgentFailure = {}) {
    super(message);
    this.stderrTail = failure.stderrTail ?? "";
    this.exit = failure.exit ?? null;
    if (failure.code !== undefined) this.code = failure.code;
  }
}

/** A way to sign in that an agent lists (`authMethods`). */
export interface AgentAuthMethod {
  /** The agent's id of the method. */
  id: string;
  /** Its name, in the agent's words. */
  name: string;
  /** What it does, in the agent's words, when the agent says. */
  description?: string;
  /**
   * For a method done in a terminal: the arguments to run the agent's own
   * command with, and extra environment, to sign in.
   */
  terminal?: { args: string[]; env: Record<string, string> };
}

/**
 * The agent will not start a session until a person signs in. The work waits
 * (its state is `waiting`), and Chat says what to run: the message names each
 * way the agent lists.
 */
export class AgentSignInRequiredError extends SyncError {
  /** `"AgentSignInRequiredError"`: the name receipts, reports and the API show with the message. */
  override name = "AgentSignInRequiredError";
  /** The ways to sign in the agent listed, possibly none. */
  readonly authMethods: AgentAuthMethod[];
  /**
   * Keeps the ways to sign in beside the message, so Chat can show them.
   *
   * @param message What to run, and why.
   * @param authMethods The ways to sign in the agent listed.
   */
  constructor(message: string, authMethods: AgentAuthMethod[]) {
    super(message);
    this.authMethods = authMethods;
  }
}
