/**
 * Who began an agent session and when, in words, as `sync chat` says it:
 * "Begun by the Triage sweep on the clock at 2030-01-01 03:00". Chat says
 * the same in the browser, in its reader's words (`ui/chat/chat_words.ts`).
 *
 * @module
 */
import type { AgentSession } from "../agent_session.ts";
import type { Source } from "../types.ts";

/** Options for {@linkcode begunBy}. */
export interface BegunByOptions {
  /** How a person is named: "a person" unless told. */
  person?: string;
  /** Says a time: `2030-01-01 03:00` in this process's zone unless told. */
  when?: (at: Date) => string;
}

/**
 * The sentence saying who began a session, why and when. Work a handler
 * ordered names the handler ("the Triage sweep", from the extension's name
 * and the last part of the handler's) and the occasion it was called on;
 * its time is when that call began. A source that does not say why the
 * handler was called is told with what it has, and the session's own start.
 *
 * @param session The session's pointer: its source and when it was begun.
 * @param options How a person and a time are said.
 * @returns "Begun by the Triage sweep on the clock at 2030-01-01 03:00",
 *   "Begun by the Triage sweep, called by the agent demo, at …", "Begun by a person at …".
 */
export function begunBy(
  session: Pick<AgentSession, "source" | "createdAt">,
  options: BegunByOptions = {},
): string {
  const person = options.person ?? "a person";
  const when = options.when ?? localTime;
  const { source } = session;
  const iso = source.kind === "handler" && source.calledAt ? source.calledAt : session.createdAt;
  const at = new Date(iso);
  const time = Number.isNaN(at.getTime()) ? "" : ` at ${when(at)}`;
  if (source.kind !== "handler") return `Begun by ${callerWords(source, person)}${time}`;
  const handler = source.handler.split(".").at(-1) || source.handler;
  const who = `the ${source.extensionName} ${handler}`;
  const occasion = source.occasion;
  if (!occasion) return `Begun by ${who}${time}`;
  switch (occasion.kind) {
    case "clock":
      return `Begun by ${who} on the clock${time}`;
    case "lifecycle":
      return `Begun by ${who} ${momentWords(occasion.moment, source.extensionName)}${time}`;
    case "task": {
      const task = occasion.task ? `${occasion.task.name} task` : "task";
      return `Begun by ${who} in its device's ${task}${time}`;
    }
    case "agent":
    case "extension": {
      const caller = source.calledBy && source.calledBy.kind !== "handler"
        ? callerWords(source.calledBy, person)
        : occasion.kind === "agent"
        ? "an agent"
        : "another extension";
      return `Begun by ${who}, called by ${caller},${time}`;
    }
  }
}

/** A caller that is not a handler, in words. */
function callerWords(source: Source, person: string): string {
  switch (source.kind) {
    case "person":
      return person;
    case "clock":
      return "the clock";
    case "agent":
      return source.name ? `the agent ${source.name}` : "an agent";
    case "handler":
      return `the ${source.extensionName} extension`;
  }
}

/** The lifecycle moment a handler was called at, as the end of "Begun by the Triage setup …". */
function momentWords(moment: string | undefined, extension: string): string {
  switch (moment) {
    case "installed":
      return `when ${extension} was installed`;
    case "removed":
      return `as ${extension} was being removed`;
    case "opened":
      return "when the project was opened";
    default:
      return "at a lifecycle moment";
  }
}

/** `2030-01-01 03:00`, in this process's zone. */
function localTime(at: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ` +
    `${two(at.getHours())}:${two(at.getMinutes())}`;
}
