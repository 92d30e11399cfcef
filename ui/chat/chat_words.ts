/**
 * The words Chat says about a session: where it has got to, who began it,
 * and why a turn stopped.
 *
 * @module
 */
import type { AgentSession, AgentSessionState } from "../../runtime/web/api/chat_types.ts";

/** The quiet word a row shows for its state; none for a session whose last turn ended. */
export function stateWord(state: AgentSessionState): string | null {
  switch (state) {
    case "ordered":
      return "starting";
    case "running":
      return "running";
    case "waiting":
      return "waiting";
    case "failed":
      return "failed";
    case "interrupted":
      return "interrupted";
    case "ended":
      return null;
  }
}

/**
 * The word for where a session stands, as its header and row show it: as
 * {@linkcode stateWord}, but `cancelled` for one that failed because the
 * person cancelled it (Sync stopped the agent), which is not the agent
 * going wrong.
 *
 * @param state Its state.
 * @param cancelled It failed because of a person's cancel.
 */
export function shownState(
  state: AgentSessionState,
  cancelled: boolean,
): { word: string | null; tone: string } {
  if (state === "failed" && cancelled) return { word: "cancelled", tone: "cancelled" };
  return { word: stateWord(state), tone: state };
}

/** True when the session failed because a person cancelled it and Sync stopped its agent. */
export function cancelledBySync(session: AgentSession): boolean {
  return session.state === "failed" && session.error?.name === "Cancelled";
}

/**
 * Who began a session, on what occasion and when, as one sentence: "Begun
 * by the Triage sweep on the clock at 03:00", "Begun by the Triage sweep,
 * called by you, yesterday at 14:12", "Begun by you at 09:30". Work a
 * handler ordered is timed from the call that ordered it; a source that
 * does not say why its handler was called is told with what it has.
 *
 * @param session The session's pointer.
 * @param now The time to say "today" and "yesterday" from.
 */
export function sourceSentence(session: AgentSession, now: Date = new Date()): string {
  const source = session.source;
  const at = source.kind === "handler" && source.calledAt ? source.calledAt : session.createdAt;
  const when = whenWords(at, now);
  if (source.kind !== "handler") return `Begun by ${callerWords(source)} ${when}`;
  const handler = source.handler.split(".").at(-1) || source.handler;
  const who = `the ${source.extensionName} ${handler}`;
  const occasion = source.occasion;
  if (!occasion) return `Begun by ${who} ${when}`;
  switch (occasion.kind) {
    case "clock":
      return `Begun by ${who} on the clock ${when}`;
    case "lifecycle": {
      const moment = occasion.moment === "installed"
        ? `when ${source.extensionName} was installed`
        : occasion.moment === "removed"
        ? `as ${source.extensionName} was being removed`
        : occasion.moment === "opened"
        ? "when the project was opened"
        : "at a lifecycle moment";
      return `Begun by ${who} ${moment} ${when}`;
    }
    case "task": {
      const task = occasion.task ? `${occasion.task.name} task` : "task";
      return `Begun by ${who} in its device's ${task} ${when}`;
    }
    case "agent":
    case "extension": {
      const caller = source.calledBy && source.calledBy.kind !== "handler"
        ? callerWords(source.calledBy)
        : occasion.kind === "agent"
        ? "an agent"
        : "another extension";
      return `Begun by ${who}, called by ${caller}, ${when}`;
    }
  }
}

/** Who called, when it was not a handler. */
function callerWords(source: AgentSession["source"]): string {
  switch (source.kind) {
    case "person":
      return "you";
    case "clock":
      return "the clock";
    case "agent":
      return source.name ? `the agent ${source.name}` : "an agent";
    case "handler":
      return `the ${source.extensionName} extension`;
  }
}

/** "at 03:00", "yesterday at 03:00", "on 12 Mar at 03:00", in the reader's zone. */
function whenWords(iso: string, now: Date): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  const time = at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  const day = (date: Date) =>
    new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  const days = Math.round((day(now) - day(at)) / 86_400_000);
  if (days === 0) return `at ${time}`;
  if (days === 1) return `yesterday at ${time}`;
  const date = at.toLocaleDateString(undefined, {
    day: "numeric",
    month: "short",
    year: at.getFullYear() === now.getFullYear() ? undefined : "numeric",
  });
  return `on ${date} at ${time}`;
}

/** Why a turn stopped, in words; "end_turn" is the ordinary end. */
export function stopWords(stopReason: string): string {
  switch (stopReason) {
    case "end_turn":
      return "Turn ended";
    case "cancelled":
      return "Turn cancelled";
    case "refusal":
      return "The agent refused to go on";
    case "max_tokens":
      return "Turn stopped: the agent reached its token limit";
    case "max_turn_requests":
      return "Turn stopped: the agent reached its limit of requests in one turn";
    default:
      return `Turn stopped: ${stopReason}`;
  }
}

/**
 * What a sign-in wait's text says that its ways do not: the sentence of a
 * known failure that leads it (which may name one more way, such as a
 * command to run). The sentence Sync builds from the ways ("The agent …
 * needs a person to sign in …") is left out, since the ways say it each
 * with its action. Null when nothing is left.
 *
 * @param text The wait's text.
 * @param agent The agent's name in Sync.
 */
export function signInLead(text: string, agent: string): string | null {
  const own = `The agent ${agent} needs a person to sign in`;
  const lead = text.split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "" && !paragraph.startsWith(own))
    .join("\n\n");
  return lead === "" ? null : lead;
}

/** "1 message", "3 messages". */
export function messagesWords(count: number): string {
  return count === 1 ? "1 message" : `${count} messages`;
}
