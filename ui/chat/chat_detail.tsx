import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type {
  AgentActivity,
  AgentSession,
  ChatSessionResponse,
  TranscriptEntry,
} from "../../runtime/web/api/chat_types.ts";
import type { StreamEvent } from "../../runtime/web/api/events_types.ts";
import { ApiError, getJson, messageOf } from "../api/client.ts";
import type { ProjectState } from "../state/project_state.ts";
import { ActivityLine } from "./activity_line.tsx";
import { ChatHeader } from "./chat_header.tsx";
import { itemsOf, joinEntry } from "./transcript_items.ts";
import { TranscriptView } from "./transcript_view.tsx";
import { TurnBox } from "./turn_box.tsx";
import { UserTurn } from "./user_turn.tsx";

/** Props of {@linkcode ChatDetail}. */
export interface ChatDetailProps {
  /** The project's live state. */
  state: ProjectState;
  /** The session's key. */
  sessionKey: string;
  /** Told the conversation was deleted. */
  onDeleted: () => void;
}

/** What the detail knows of its session. */
interface Held {
  session: AgentSession;
  entries: TranscriptEntry[];
  omitted: number;
}

type Shown =
  | { kind: "loading" }
  | { kind: "session"; held: Held }
  | { kind: "error"; message: string; missing: boolean };

/**
 * One conversation in the detail column: its header, its transcript kept
 * live from the project's `session` and `transcript` facts, and the
 * controls for the next turn.
 */
export function ChatDetail(props: ChatDetailProps) {
  const { state, sessionKey } = props;
  const project = state.project;
  const [shown, setShown] = useState<Shown>({ kind: "loading" });
  // What the agent is doing: from the session's view, then its `activity` facts.
  const [activity, setActivity] = useState<AgentActivity | null>(null);
  // Facts that arrive while the session is read wait here, then go on top of the answer.
  const pending = useRef<TranscriptEntry[] | null>([]);
  const reading = useRef<{ busy: boolean; again: boolean }>({ busy: false, again: false });

  /**
   * Takes a session's answer. A read is taken whole; an action's answer can be
   * older than the facts the stream already brought, so its transcript is
   * taken only when it holds at least as much as the one shown.
   */
  const take = useCallback((answer: ChatSessionResponse, whole = false) => {
    if (answer.activity !== undefined) setActivity(answer.activity);
    setShown((before) => {
      if (before.kind !== "session") {
        return {
          kind: "session",
          held: { session: answer.session, entries: answer.transcript, omitted: answer.omitted },
        };
      }
      const held = before.held;
      const newer = Date.parse(held.session.updatedAt) > Date.parse(answer.session.updatedAt);
      const session = newer ? held.session : answer.session;
      const fuller =
        answer.transcript.length + answer.omitted >= held.entries.length + held.omitted;
      return {
        kind: "session",
        held: whole || fuller
          ? { session, entries: answer.transcript, omitted: answer.omitted }
          : { ...held, session },
      };
    });
  }, []);

  const read = useCallback(async () => {
    if (reading.current.busy) {
      reading.current.again = true;
      return;
    }
    reading.current.busy = true;
    do {
      reading.current.again = false;
      pending.current = [];
      try {
        const answer = await getJson<ChatSessionResponse>(
          `/api/chat/sessions/${encodeURIComponent(sessionKey)}`,
          { project },
        );
        // Entries the answer cannot hold yet: seen after its pointer last changed.
        const since = Date.parse(answer.session.updatedAt);
        let entries = answer.transcript;
        for (const entry of pending.current ?? []) {
          if (Date.parse(entry.at) > since) entries = joinEntry(entries, entry);
        }
        pending.current = null;
        take({ ...answer, transcript: entries }, true);
      } catch (thrown) {
        pending.current = null;
        const missing = thrown instanceof ApiError && thrown.status === 404;
        // A read again that fails keeps what is shown; the stream's reconnect reads once more.
        setShown((before) =>
          before.kind === "session" && !missing
            ? before
            : { kind: "error", message: messageOf(thrown), missing }
        );
      }
    } while (reading.current.again);
    reading.current.busy = false;
  }, [sessionKey, project, take]);

  useEffect(() => {
    setShown({ kind: "loading" });
    setActivity(null);
    const stop = state.listen((event: StreamEvent) => {
      if (event.type === "activity" && event.sessionKey === sessionKey) {
        setActivity(event.activity);
        return;
      }
      if (event.type === "resync") {
        void read();
        return;
      }
      if (event.type === "transcript" && event.sessionKey === sessionKey) {
        if (pending.current !== null) {
          pending.current.push(event.entry);
          return;
        }
        setShown((before) =>
          before.kind === "session"
            ? {
              kind: "session",
              held: { ...before.held, entries: joinEntry(before.held.entries, event.entry) },
            }
            : before
        );
        return;
      }
      if (event.type === "session" && event.session.key === sessionKey) {
        // Deleted: there is nothing to read again; the area goes back to its list.
        if (event.deleted) return;
        const session = event.session;
        setShown((before) =>
          before.kind === "session"
            ? { kind: "session", held: { ...before.held, session } }
            : before
        );
        // A turn over: read the stored transcript once, so the view is exactly what was kept.
        if (session.state !== "running" && session.state !== "ordered") void read();
      }
    });
    void read();
    return stop;
  }, [state, sessionKey, read]);

  const entries = shown.kind === "session" ? shown.held.entries : null;
  const items = useMemo(() => entries ? itemsOf(entries) : [], [entries]);

  if (shown.kind === "loading") {
    return <div class="chat-detail" aria-busy="true" />;
  }
  if (shown.kind === "error") {
    return (
      <div class="empty-detail">
        <p class={shown.missing ? "secondary" : "error"} role="alert">
          {shown.missing
            ? `There is no conversation ${sessionKey} in this project. Choose one from the list.`
            : shown.message}
        </p>
      </div>
    );
  }
  const { session } = shown.held;
  const lastEntry = shown.held.entries.at(-1);
  // Raised, not working yet: what the activity says, or before it says, no agent session yet.
  const starting = session.state === "ordered" ||
    (session.state === "running" &&
      (activity !== null ? activity.phase !== "working" : session.agentSessionId === null));
  const unsaidError = session.error !== null && session.state === "failed" &&
    lastEntry?.kind !== "failure";
  return (
    <div class="chat-detail">
      <ChatHeader
        session={session}
        project={project}
        entries={shown.held.entries.length + shown.held.omitted}
        onSession={take}
        onDeleted={props.onDeleted}
      />
      <TranscriptView
        items={unsaidError
          ? [...items, {
            kind: "failure",
            key: "session-error",
            entry: {
              kind: "failure",
              at: session.updatedAt,
              message: session.error!.message,
              stderrTail: session.error!.stderrTail,
            },
          }]
          : items}
        omitted={shown.held.omitted}
        session={session}
        project={project}
        onSession={take}
        live={state.live.value}
        starting={starting}
      />
      {(session.pending ?? []).length > 0 && (
        <section class="pending-turns" aria-label="Not sent yet">
          {session.pending!.map((turn) => (
            <UserTurn
              key={turn.id}
              entry={{ kind: "user", at: turn.at, text: turn.text }}
              who="You (not sent yet: the agent gets it once its session opens)"
            />
          ))}
        </section>
      )}
      {activity !== null && session.state === "running" && (
        <ActivityLine activity={activity} agent={session.agent} />
      )}
      <TurnBox session={session} project={project} starting={starting} onSession={take} />
    </div>
  );
}
