/**
 * A piece of a session's work (raising its agent, a turn, sending what
 * waits), run in the background one at a time per session: its failure
 * becomes the session's state (`failed`, or `waiting` for a sign-in), never
 * a rejection nobody hears. Private to the agents folder: the work
 * performer's (`work_performer.ts`).
 *
 * @module
 */
import { describeError } from "../internal/describe_error.ts";
import { AgentFailedError, AgentSignInRequiredError } from "./agent_errors.ts";
import { type LiveSession, reason, tailOf } from "./_live_session.ts";
import type { SessionWrites } from "./_session_writes.ts";

/** What a piece of a session's work is given by the work performer. */
export interface SessionWorkOptions {
  /** Where the session's pointer changes go. */
  writes: SessionWrites;
  /** True once Sync is stopping: nothing more starts, and a failure is left to stopping. */
  stopping: () => boolean;
  /** A session whose work is over: its agent is kept a while, then it leaves memory. */
  idle: (live: LiveSession) => void;
  /** Keeps a background task, so that stopping waits for it. */
  track: (task: Promise<unknown>) => void;
}

/**
 * Runs a piece of a session's work in the background, once the piece
 * before it has ended.
 *
 * @param live The session.
 * @param what The work.
 * @param options Where changes go, and what the performer does around it.
 */
export function startWork(
  live: LiveSession,
  what: () => Promise<void>,
  options: SessionWorkOptions,
): void {
  const { writes } = options;
  live.working = true;
  live.accepting = true;
  live.cancelled = false;
  const mine = ++live.task;
  clearTimeout(live.idle);
  // One piece of a session's work at a time: a piece begun while the one before is still
  // failing (closing its agent, writing `failed`) waits for it, so that one agent at most is
  // raised for the session and its messages are sent once, in order.
  const before = live.tasks;
  const task = (async () => {
    await before;
    try {
      if (options.stopping()) return;
      // The piece before may have written its own end meanwhile.
      if (live.pointer.state !== "running") {
        await writes.change(live, { state: "running", waitingFor: null, error: null });
      }
      await what();
    } catch (error) {
      // What the person sends from now on waits with the session for Continue.
      if (live.task === mine) live.accepting = false;
      if (options.stopping()) return;
      await live.acp?.close().catch(() => {});
      live.acp = null;
      if (error instanceof AgentSignInRequiredError) {
        await writes.change(live, {
          state: "waiting",
          waitingFor: {
            kind: "sign-in",
            text: reason(error.message),
            ...(error.ways.length > 0 ? { ways: error.ways } : {}),
          },
        });
        return;
      }
      const described = describeError(error);
      const stderrTail = error instanceof AgentFailedError ? tailOf(error.stderrTail) : "";
      await writes.change(live, {
        state: "failed",
        waitingFor: null,
        error: {
          // Sync stopped the agent because the person cancelled: said as theirs, not the agent's.
          name: live.cancelled && error instanceof AgentFailedError
            ? "Cancelled"
            : described.name.slice(0, 100),
          message: reason(described.message),
          ...(stderrTail ? { stderrTail } : {}),
        },
      });
    } finally {
      // A newer piece of work may have begun once this one set the state.
      if (live.task === mine) {
        live.working = false;
        live.accepting = false;
        live.activity?.rest();
        if (!options.stopping()) options.idle(live);
      }
    }
  })();
  live.tasks = task;
  options.track(task);
}
