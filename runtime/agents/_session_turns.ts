/**
 * A session's turns and the person's messages that wait for them: a
 * message is kept whole (`pending_turns.ts`) and listed in the pointer until
 * the agent's session opens; then the pending turns are sent, oldest first,
 * one turn each. A turn is `running` while it goes and `ended` when the
 * agent ends it. Private to the agents folder: the work performer's
 * (`work_performer.ts`).
 *
 * @module
 */
import type { PendingTurn } from "../agent_session.ts";
import { ConflictError } from "../errors.ts";
import { newId } from "../internal/id.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";
import { AgentFailedError } from "./agent_errors.ts";
import { forgetPendingTurn, keepPendingTurn, readPendingTurn } from "./pending_turns.ts";
import type { LiveSession } from "./_live_session.ts";
import type { SessionWrites } from "./_session_writes.ts";

/** What a session's turns are given by the work performer. */
export interface SessionTurnsOptions {
  /** The installation's KV, where waiting messages are kept. */
  kv: Deno.Kv;
  /** The host's clock, in ms. */
  now: () => number;
  /** Where the session's pointer changes and transcript entries go. */
  writes: SessionWrites;
  /** True once Sync is stopping: nothing more is sent. */
  stopping: () => boolean;
}

/**
 * Keeps a person's message, whole, to be sent once the agent's session
 * opens; a message that cannot be kept is refused, never answered as kept.
 */
export async function queueMessage(
  live: LiveSession,
  text: string,
  options: SessionTurnsOptions,
): Promise<void> {
  const { project, key } = live.pointer;
  if ((live.pointer.pending?.length ?? 0) >= AGENT_LIMITS.maxPendingTurns) {
    throw new ConflictError(
      `The session ${key} has ${AGENT_LIMITS.maxPendingTurns} messages waiting to be sent ` +
        `already: continue it (or sign in) so the agent gets them, then send more`,
    );
  }
  const at = new Date(options.now()).toISOString();
  const turn = await keepPendingTurn(
    options.kv,
    project,
    key,
    { id: newId(options.now()), at },
    text,
  );
  // Whether the pointer took it, not whether it still lists it: it may be sent by now.
  if (!await options.writes.change(live, (s) => ({ pending: [...(s.pending ?? []), turn] }))) {
    await forgetPendingTurn(options.kv, project, key, turn.id).catch(() => {});
    throw new ConflictError(
      `Your message to the session ${key} could not be kept: Sync could not write the ` +
        `session's state. It was not sent; send it again once the session shows why`,
    );
  }
}

/**
 * Sends the pending turns, oldest first, one turn each, while the agent's
 * session is open; stops when a turn does not end (`ended`) or when none
 * is left. A session with nothing pending ends.
 */
export async function sendPending(live: LiveSession, options: SessionTurnsOptions): Promise<void> {
  for (;;) {
    const next: PendingTurn | undefined = live.pointer.pending?.[0];
    if (next === undefined) {
      // Decided together with looking: a message queued from now on needs work of its own.
      live.accepting = false;
      if (live.pointer.state !== "ended") {
        await options.writes.change(live, { state: "ended", waitingFor: null });
      }
      return;
    }
    const { project, key } = live.pointer;
    const text = await readPendingTurn(options.kv, project, key, next.id) ?? next.text;
    await runTurn(live, text, options, next.id);
    // A turn cancelled before it was sent leaves its message pending: nothing more is sent.
    const unsent = live.pointer.pending?.[0]?.id === next.id;
    if (unsent || live.pointer.state !== "ended" || options.stopping()) return;
  }
}

/**
 * One turn: `running` while it goes, `ended` when the agent ends it. A
 * pending turn (`pendingId`) leaves the pointer once it is on its way.
 */
export async function runTurn(
  live: LiveSession,
  text: string,
  options: SessionTurnsOptions,
  pendingId?: string,
): Promise<void> {
  const acp = live.acp;
  if (acp === null) throw new AgentFailedError(`The agent ${live.pointer.agent} is not running`);
  if (live.pointer.state !== "running") {
    await options.writes.change(live, { state: "running", waitingFor: null, error: null });
  }
  live.activity?.show("working");
  if (live.cancelled) {
    live.cancelled = false;
    options.writes.entry(live, {
      at: new Date(options.now()).toISOString(),
      kind: "turn_end",
      stopReason: "cancelled",
    });
    await options.writes.change(live, { state: "ended", waitingFor: null });
    return;
  }
  let sent = text;
  if (live.seed !== null) {
    sent = `Sync restored this conversation in a new session; here is what was said before:\n\n` +
      `${live.seed}\n\nThe person now says:\n\n${text}`;
    live.seed = null;
    live.seededText = text;
  }
  const turn = acp.prompt(sent);
  // Its failure is the turn's, heard below once the message has left the pending ones.
  turn.catch(() => {});
  if (pendingId !== undefined) await sentPending(live, pendingId, options);
  await turn;
  live.cancelled = false;
  if (options.stopping()) return;
  await options.writes.change(live, { state: "ended", waitingFor: null });
}

/** A pending turn was sent: it leaves the pointer and the store. */
async function sentPending(
  live: LiveSession,
  id: string,
  options: SessionTurnsOptions,
): Promise<void> {
  await options.writes.change(
    live,
    (s) => ({ pending: (s.pending ?? []).filter((t) => t.id !== id) }),
  );
  await forgetPendingTurn(options.kv, live.pointer.project, live.pointer.key, id);
}
