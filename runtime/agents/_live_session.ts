/**
 * A session alive in the work performer's run (`work_performer.ts`), and
 * the small rules it keeps about what a session's state may hold. Private
 * to the agents folder.
 *
 * @module
 */
import type { AgentSession, AgentSessionState } from "../agent_session.ts";
import { cutText } from "../internal/cut_text.ts";
import { describeError } from "../internal/describe_error.ts";
import type { AcpSession, PermissionAnswer, PermissionRequest } from "./acp_session.ts";
import type { ActivityTracker } from "./activity_tracker.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";
import { AgentFailedError } from "./agent_errors.ts";
import type { ListedAgent } from "./agent_definitions.ts";
import type { AgentPeer } from "./agent_peer.ts";
import type { TranscriptWriter } from "./transcript_store.ts";

/** A session alive in this run. */
export class LiveSession {
  /** The session's pointer, as last written. */
  pointer: AgentSession;
  /** Its transcript, kept and written as it grows. */
  writer: TranscriptWriter;
  /** The ACP session with its agent, once raised. */
  acp: AcpSession | null = null;
  /** The agent's process while it is being raised, before its ACP session answers. */
  peer: AgentPeer | null = null;
  /** Aborted when a person cancels while the agent's process answers no ACP yet: it is stopped. */
  raising: AbortController | null = null;
  /** What the agent's process is doing: told while a turn runs, never written. */
  activity: ActivityTracker | null = null;
  /** True while a turn (or raising the agent) is under way. */
  working = false;
  /** Counts the pieces of work begun, so that only the latest one says the session is idle. */
  task = 0;
  /** Waiting permission requests, by id: each resolves with a person's answer. */
  asking = new Map<string, (answer: PermissionAnswer) => void>();
  /** The options of each waiting request, as the agent offered them: what an answer is checked against. */
  options = new Map<string, PermissionRequest["options"]>();
  /** The stored transcript, to put before the person's next turn when the agent could not load it. */
  seed: string | null = null;
  /** The person's own words of a seeded turn, which the transcript keeps instead of the seed. */
  seededText: string | null = null;
  /** Pointer writes, one after the other, so facts are told in the order written. */
  writes: Promise<unknown> = Promise.resolve();
  /** Stops an agent left idle after its turn ended. */
  idle: ReturnType<typeof setTimeout> | undefined;
  /** A person cancelled before the turn's prompt was sent: it is not sent. */
  cancelled = false;
  /**
   * True while the work under way will still look for pending turns to
   * send; a message queued once it is false needs work of its own.
   */
  accepting = false;
  /** True from the start of raising the agent until its session is open (or raising failed). */
  opening = false;
  /** How many of a person's actions hold it live now: it does not leave memory while any does. */
  holds = 0;
  /** The latest piece of work begun: the next one waits for it to end. */
  tasks: Promise<void> = Promise.resolve();
  /** A person's messages, taken one after the other. */
  prompting: Promise<unknown> = Promise.resolve();

  /**
   * A live session over its pointer, its transcript writer holding what is stored.
   *
   * @param pointer The session's pointer as it stands.
   * @param writer Where its transcript goes.
   */
  constructor(pointer: AgentSession, writer: TranscriptWriter) {
    this.pointer = pointer;
    this.writer = writer;
  }
}

/** A reason put in a session's state (why it failed, how to sign in), cut to what the state keeps. */
export function reason(text: string): string {
  return cutText(text, AGENT_LIMITS.maxReasonChars);
}

/** The last of an agent's stderr as the state keeps it: its end, cut to the same length. */
export function tailOf(stderrTail: string): string {
  const max = AGENT_LIMITS.maxReasonChars;
  return stderrTail.length <= max ? stderrTail : `…${stderrTail.slice(-(max - 1))}`;
}

/** The key a live session is found by: its project and its own key. */
export function liveKey(project: string, key: string): string {
  return `${project}\u0000${key}`;
}

/** True for a state with something under way: `running`, `waiting` or `ordered`. */
export function isActive(state: AgentSessionState): boolean {
  return state === "running" || state === "waiting" || state === "ordered";
}

/** The agent's program could not start: say what to install. */
export function missingProgram(definition: ListedAgent, error: unknown): AgentFailedError {
  const notFound = error instanceof Deno.errors.NotFound ||
    /not found|no such (file|program)|there is no file|ENOENT/i.test(describeError(error).message);
  if (notFound) {
    return new AgentFailedError(
      `The agent ${definition.name} cannot start: its program ${definition.command} is not ` +
        `installed (or not on PATH). To use it, ${definition.install}`,
    );
  }
  return new AgentFailedError(
    `The agent ${definition.name} cannot start ${definition.command}: ` +
      describeError(error).message,
  );
}
