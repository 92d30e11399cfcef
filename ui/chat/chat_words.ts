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
 * Who began a session and when, as one sentence: "Begun by the Issues poll
 * at 03:00", "Begun by you yesterday at 14:12".
 *
 * @param session The session's pointer.
 * @param now The time to say "today" and "yesterday" from.
 */
export function sourceSentence(session: AgentSession, now: Date = new Date()): string {
  const source = session.source;
  let who: string;
  switch (source.kind) {
    case "person":
      who = "you";
      break;
    case "clock":
      who = "the clock";
      break;
    case "agent":
      who = source.name ? `the agent ${source.name}` : "an agent";
      break;
    case "handler": {
      const handler = source.handler.split(".").at(-1) || source.handler;
      who = `the ${source.extensionName} ${handler}`;
      break;
    }
  }
  return `Begun by ${who} ${whenWords(session.createdAt, now)}`;
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
