/**
 * An agent session as the installation keeps it: the **pointer** of the three
 * layers (seed 000 §6). The live session is in memory for this run only; the
 * pointer says which agent, in which project, the agent's own session id, the
 * order it performs, who asked for it and where it has got to, and survives
 * a restart; the record (`chat.conversation` in the project's memory) is
 * written only when a person keeps the conversation.
 *
 * Declared here, below every domain, because it travels beyond the agents
 * domain that keeps it: in the facts of the event stream and in the web API.
 *
 * @module
 */
import type { Source } from "./types.ts";

/**
 * Where a session has got to, as `work.state()` answers it:
 * - `ordered`: written down, not started yet;
 * - `running`: the agent is working on a turn;
 * - `waiting`: a person must act — answer a permission request, or sign in to the agent;
 * - `ended`: the last turn ended; a person may type the next one;
 * - `failed`: the agent could not start or failed (its reason and stderr are kept);
 * - `interrupted`: Sync stopped while it ran; only a person continues it.
 */
export type AgentSessionState =
  | "ordered"
  | "running"
  | "waiting"
  | "ended"
  | "failed"
  | "interrupted";

/** What a waiting session waits for. */
export type AgentSessionWait =
  /** A permission request the agent made; its options are in the transcript's `permission` entry. */
  | { kind: "permission"; requestId: string }
  /**
   * The agent needs signing in: `text` says what to do in words, `ways`
   * says it for each way the agent lists (absent in a pointer kept before
   * sessions carried them).
   */
  | { kind: "sign-in"; text: string; ways?: SignInWay[] };

/**
 * One way to sign in to an agent, as a person does it: a command to run in
 * a terminal, variables to add to the agent's definition, or the agent's
 * own way in its words. Every string but `command` and the variables'
 * names is the agent's, to be shown as text.
 */
export interface SignInWay {
  /** The agent's id of the method. */
  id: string;
  /** Its name, in the agent's words. */
  name: string;
  /** What it does, in the agent's words, when the agent says. */
  description?: string;
  /** A command to run in a terminal: the agent's own program with the method's arguments and environment. */
  command?: string;
  /** Environment variables to add to the agent's definition; Sync then signs in with them itself. */
  envVars?: { name: string; label?: string; optional?: boolean }[];
  /** Where to get the credential, when the agent says. */
  link?: string;
}

/**
 * A person's message that the agent has not been sent yet (it was being
 * raised, waited for a sign-in, or could not start): kept with the session
 * and sent, in order, once the agent's session opens.
 */
export interface PendingTurn {
  /** Names it among the session's pending turns. */
  id: string;
  /** When the person sent it, as an ISO 8601 time. */
  at: string;
  /** Its text, cut to what a pointer keeps (the whole is kept beside it and is what is sent). */
  text: string;
}

/** The pointer to one agent session. */
export interface AgentSession {
  /** Names the session: the work order's key when it performs one, `chat-<id>` when a person began it. */
  key: string;
  /** The project's resolved folder, the agent's working folder. */
  project: string;
  /** The agent definition's name, such as `demo` or `claude-code`. */
  agent: string;
  /** The agent's own session id, once it made one; null before. */
  agentSessionId: string | null;
  /** The work order it performs; null for a conversation a person began. */
  orderKey: string | null;
  /** The extension that ordered it (Chat groups by it); null when a person or an agent began it. */
  extensionId: string | null;
  /** That extension's name, as people see it; null with no extension. */
  extensionName: string | null;
  /** Who asked for it; set when it was ordered, never changed. */
  source: Source;
  /** Its title: the order's, or the first words of a person's first turn. */
  title: string;
  /**
   * What the order said the work is about (a record key such as
   * `issues.issue/7`); absent when it said nothing, and for a person's
   * conversation.
   */
  about?: string;
  /** Where it has got to. */
  state: AgentSessionState;
  /** What it waits for, while `waiting`. */
  waitingFor: AgentSessionWait | null;
  /** What the order asked for when interrupted: `continue` or `wait`; shown, never acted on alone. */
  onInterrupted: "continue" | "wait";
  /** When it was begun, as an ISO 8601 time. */
  createdAt: string;
  /** When its state or transcript last changed, as an ISO 8601 time. */
  updatedAt: string;
  /**
   * Why it failed or was interrupted; null otherwise. `name` is `Cancelled`
   * when Sync stopped the agent because a person cancelled (while it
   * started, or when it did not end the turn in time), `Interrupted` when
   * Sync stopped.
   */
  error: { name: string; message: string; stderrTail?: string } | null;
  /**
   * A person's messages not sent to the agent yet, oldest first; sent once
   * its session opens. Absent or empty when there are none.
   */
  pending?: PendingTurn[];
  /** The `chat.conversation` record it was kept as, once a person pressed Keep; null before. */
  keptAs: string | null;
  /**
   * When a person archived it (Chat lists it apart, under Archived); absent
   * or null while it is not archived.
   */
  archivedAt?: string | null;
}

/**
 * The extension a session's work comes from: the one whose handler ordered
 * it, or, for work an agent ordered, the one whose work that agent performed.
 *
 * @param session The session.
 * @returns The extension's id, or null for a person's or a person's agent's.
 */
export function orderingExtension(session: AgentSession): string | null {
  if (session.extensionId !== null) return session.extensionId;
  return session.source.kind === "agent" ? session.source.extensionId ?? null : null;
}
