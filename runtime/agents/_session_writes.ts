/**
 * How a live session's changes are written and told: each change of its
 * pointer is written after its transcript, one after the other, and told as
 * a `session` fact; each transcript entry is kept and told as a
 * `transcript` fact. A pointer that cannot be written fails the session in
 * Sync's own words, so it never stays `running` with nothing moving it.
 * Private to the agents folder: the work performer's (`work_performer.ts`).
 *
 * @module
 */
import type { AgentSession, AgentSessionState } from "../agent_session.ts";
import { cutText } from "../internal/cut_text.ts";
import { describeError } from "../internal/describe_error.ts";
import type { SyncEvent } from "../sync_event.ts";
import type { TranscriptEntry } from "../transcript.ts";
import { isActive, type LiveSession } from "./_live_session.ts";
import { updateSession } from "./session_store.ts";

/** Changes a pointer may be given. */
export type PointerChange = Partial<
  Pick<
    AgentSession,
    | "state"
    | "waitingFor"
    | "error"
    | "agentSessionId"
    | "keptAs"
    | "title"
    | "pending"
    | "archivedAt"
  >
>;

/** What {@linkcode SessionWrites} writes with and tells to. */
export interface SessionWritesOptions {
  /** The installation's KV, where pointers are. */
  kv: Deno.Kv;
  /** Where `session` and `transcript` facts are told. */
  publish: (event: SyncEvent) => void;
  /** The host's clock, in ms. */
  now: () => number;
  /** Where notices go (a session that could not be written). */
  log: (line: string) => void;
  /** True once Sync is stopping: a failing turn is then Sync's doing, said as `stopped`. */
  stopping: () => boolean;
  /** Keeps a background task, so that stopping waits for it. */
  track: (task: Promise<unknown>) => void;
}

/** Writes and tells the changes of sessions; one per work performer. */
export class SessionWrites {
  #kv: Deno.Kv;
  #publish: (event: SyncEvent) => void;
  #now: () => number;
  #log: (line: string) => void;
  #stopping: () => boolean;
  #track: (task: Promise<unknown>) => void;

  /**
   * Writes over an installation, told on a bus.
   *
   * @param options The installation, where facts go, the clock, the log, and the performer's state.
   */
  constructor(options: SessionWritesOptions) {
    this.#kv = options.kv;
    this.#publish = options.publish;
    this.#now = options.now;
    this.#log = options.log;
    this.#stopping = options.stopping;
    this.#track = options.track;
  }

  /**
   * An entry of the transcript: kept, and told as it is kept (fitted to one
   * stored value), so a page is told no more than the store holds. Replayed
   * entries are Sync's already.
   *
   * @param live The session.
   * @param entry What the agent (or Sync) added.
   */
  entry(live: LiveSession, entry: TranscriptEntry): void {
    if (entry.replay) return;
    let kept = entry;
    // Sync stopping ends the agent's process: the turn failing for it is Sync's doing.
    if (entry.kind === "failure" && this.#stopping()) kept = { at: entry.at, kind: "stopped" };
    if (entry.kind === "user" && live.seededText !== null) {
      kept = { ...entry, text: live.seededText };
      live.seededText = null;
    }
    this.#publish({
      type: "transcript",
      project: live.pointer.project,
      sessionKey: live.pointer.key,
      entry: live.writer.add(kept),
    });
  }

  /**
   * Changes a live session's pointer, after its transcript is written (a
   * page that hears the fact and reads finds both), and tells it.
   *
   * @param live The session.
   * @param change What changes, or how, given the pointer as stored.
   * @returns True once written, false when the write failed (the session is
   *   then failed in Sync's words).
   */
  change(
    live: LiveSession,
    change: PointerChange | ((session: AgentSession) => PointerChange),
  ): Promise<boolean> {
    const write = live.writes.then(async () => {
      await live.writer.flush();
      const written = await updateSession(
        this.#kv,
        live.pointer.project,
        live.pointer.key,
        (s) => ({
          ...s,
          ...(typeof change === "function" ? change(s) : change),
          updatedAt: new Date(this.#now()).toISOString(),
        }),
      );
      live.pointer = written;
      this.tell(written);
      return true;
    }).catch(async (error) => {
      const why = cutText(describeError(error).message, 500);
      this.#log(
        `The session ${live.pointer.key} in ${live.pointer.project} could not be written: ${why}`,
      );
      // A state that cannot be written must not stay `running`: the session fails with Sync's own words.
      await this.#failUnwritten(live, why);
      return false;
    });
    live.writes = write;
    return write;
  }

  /**
   * A session left running or waiting by a Sync that stopped: `interrupted`,
   * for a person to continue.
   *
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @param was The state it was left in.
   */
  async interrupt(project: string, key: string, was: AgentSessionState): Promise<void> {
    try {
      const written = await updateSession(this.#kv, project, key, (s) =>
        isActive(s.state)
          ? {
            ...s,
            state: "interrupted",
            waitingFor: null,
            error: {
              name: "Interrupted",
              message: `Sync stopped while this session was ${was}. Its order asked to ` +
                `${s.onInterrupted === "continue" ? "continue" : "wait for a person"}; ` +
                `nothing resumes by itself: press Continue in the app's Chat to pick it up.`,
            },
            updatedAt: new Date(this.#now()).toISOString(),
          }
          : null);
      this.tell(written);
    } catch (error) {
      this.#log(`Could not mark ${key} in ${project} interrupted: ${describeError(error).message}`);
    }
  }

  /**
   * Tells a pointer as it stands.
   *
   * @param session The pointer, as written.
   */
  tell(session: AgentSession): void {
    this.#publish({ type: "session", project: session.project, session });
  }

  /**
   * Tells a pointer as deleted, not as a change: a page drops it instead of
   * reading what is gone.
   *
   * @param session The pointer as it was.
   */
  tellDeleted(session: AgentSession): void {
    this.#publish({ type: "session", project: session.project, session, deleted: true });
  }

  /**
   * A pointer write failed: the session becomes `failed` with a short
   * reason Sync writes itself, and its agent is stopped, so it never stays
   * `running` or `waiting` with nothing moving it.
   */
  async #failUnwritten(live: LiveSession, why: string): Promise<void> {
    try {
      const written = await updateSession(
        this.#kv,
        live.pointer.project,
        live.pointer.key,
        (s) => ({
          ...s,
          state: "failed",
          waitingFor: null,
          error: {
            name: "SessionNotWritten",
            message: `Sync could not write this session's state (${why}), so it stopped the ` +
              `agent; press Continue in the app's Chat to pick it up.`,
          },
          updatedAt: new Date(this.#now()).toISOString(),
        }),
      );
      live.pointer = written;
      this.tell(written);
    } catch (error) {
      this.#log(
        `The session ${live.pointer.key} in ${live.pointer.project} could not be marked failed: ` +
          describeError(error).message,
      );
    }
    for (const resolve of live.asking.values()) resolve("cancelled");
    const acp = live.acp;
    const peer = live.peer;
    live.acp = null;
    live.peer = null;
    this.#track(Promise.allSettled([acp?.close(), peer?.stop()]));
  }
}
