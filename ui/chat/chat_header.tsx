import { useState } from "preact/hooks";
import type {
  AgentSession,
  ChatKept,
  ChatSessionResponse,
} from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { useDelayed } from "../common/use_delayed.ts";
import { connected } from "../state/connection.ts";
import { useAnsweringError } from "../state/use_answering_error.ts";
import { AboutLink } from "./about_link.tsx";
import { ConversationActions } from "./conversation_actions.tsx";
import { KeptLine } from "./kept_line.tsx";
import { cancelledBySync, shownState, sourceSentence } from "./chat_words.ts";

/** Props of {@linkcode ChatHeader}. */
export interface ChatHeaderProps {
  /** The session's pointer. */
  session: AgentSession;
  /** The project folder, as the address gives it. */
  project: string;
  /** How many transcript entries are shown (those left out counted): Keep tells what is new by it. */
  entries: number;
  /** Told the session as Keep or Archive left it. */
  onSession: (answer: ChatSessionResponse) => void;
  /** Told the conversation was deleted. */
  onDeleted: () => void;
}

/** What the last Keep on this page did, and what the conversation held then. */
interface LastKeep {
  kept: ChatKept;
  updatedAt: string;
  entries: number;
}

/**
 * A conversation's header: its title, the agent, who began it, on what
 * occasion and when, where it has got to, what the handler that began it
 * does and what the work is about; Keep, which makes it a `chat.conversation`
 * record of the project (kept again, a new revision, and only when something
 * is new), and Archive and Delete.
 */
export function ChatHeader(props: ChatHeaderProps) {
  const { session } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useAnsweringError();
  // While Sync does not answer, Keep cannot write: it is held, as Send is.
  const off = !connected.value;
  const [last, setLast] = useState<LastKeep | null>(null);
  const slow = useDelayed(busy, 300);
  const { word, tone } = shownState(session.state, cancelledBySync(session));
  // What the handler that began it does, in its package's words (on the clock, its schedule row's).
  const described = session.source.kind === "handler" ? session.source.description : undefined;
  // Nothing said and nothing changed since the last Keep here: keeping again would write the same.
  const unchanged = last !== null && last.updatedAt === session.updatedAt &&
    last.entries === props.entries;
  const keep = async () => {
    if (busy || unchanged || off) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await postJson<ChatSessionResponse>(
        `/api/chat/sessions/${encodeURIComponent(session.key)}/keep`,
        { project: props.project },
      );
      props.onSession(answer);
      if (answer.kept) {
        setLast({
          kept: answer.kept,
          updatedAt: answer.session.updatedAt,
          entries: answer.transcript.length + answer.omitted,
        });
      }
    } catch (thrown) {
      setError(messageOf(thrown));
    } finally {
      setBusy(false);
    }
  };
  return (
    <header class="chat-header">
      <div class="chat-header-top">
        <h2 class="chat-title">{session.title}</h2>
        <div class="chat-header-actions">
          <button
            type="button"
            class="button"
            aria-disabled={busy || unchanged || off}
            aria-describedby="chat-kept"
            onClick={keep}
          >
            {session.keptAs === null ? "Keep" : "Keep again"}
          </button>
          <ConversationActions
            session={session}
            project={props.project}
            onSession={props.onSession}
            onDeleted={props.onDeleted}
          />
        </div>
      </div>
      <p class="secondary chat-facts">
        {sourceSentence(session)} · <span class="mono">{session.agent}</span>
        {word && (
          <>
            {" · "}
            <span class={`chat-state state-${tone}`}>{word}</span>
          </>
        )}
        {session.archivedAt && (
          <>
            {" · "}
            <span class="chat-state">archived</span>
          </>
        )}
      </p>
      {(described || session.about) && (
        <p class="tertiary chat-why">
          {described}
          {described && session.about && " · "}
          {session.about && <AboutLink about={session.about} project={props.project} />}
        </p>
      )}
      <KeptLine
        session={session}
        project={props.project}
        kept={last?.kept ?? null}
        unchanged={unchanged}
        keeping={slow}
      />
      {error && <p class="error" role="alert">{error}</p>}
    </header>
  );
}
