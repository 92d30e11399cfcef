import { useState } from "preact/hooks";
import type { AgentSession, ChatSessionResponse } from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { useDelayed } from "../common/use_delayed.ts";
import { AboutLink } from "./about_link.tsx";
import { sourceSentence, stateWord } from "./chat_words.ts";

/** Props of {@linkcode ChatHeader}. */
export interface ChatHeaderProps {
  /** The session's pointer. */
  session: AgentSession;
  /** The project folder, as the address gives it. */
  project: string;
  /** Told the session as Keep left it. */
  onSession: (answer: ChatSessionResponse) => void;
}

/**
 * A conversation's header: its title, the agent, who began it, on what
 * occasion and when, where it has got to, what the handler that began it
 * does and what the work is about, and Keep, which makes it a `chat.conversation`
 * record of the project.
 */
export function ChatHeader(props: ChatHeaderProps) {
  const { session } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [justKept, setJustKept] = useState(false);
  const slow = useDelayed(busy, 300);
  const word = stateWord(session.state);
  // What the handler that began it does, in its package's words (on the clock, its schedule row's).
  const described = session.source.kind === "handler" ? session.source.description : undefined;
  const keep = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await postJson<ChatSessionResponse>(
        `/api/chat/sessions/${encodeURIComponent(session.key)}/keep`,
        { project: props.project },
      );
      props.onSession(answer);
      setJustKept(true);
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
        {/* Keeping again writes the record again, with what came since. */}
        <button type="button" class="button" aria-disabled={busy} onClick={keep}>
          Keep
        </button>
      </div>
      <p class="secondary chat-facts">
        {sourceSentence(session)} · <span class="mono">{session.agent}</span>
        {word && (
          <>
            {" · "}
            <span class={`chat-state state-${session.state}`}>{word}</span>
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
      <p class="tertiary chat-kept" role="status">
        {session.keptAs !== null
          ? (
            <>
              {justKept ? "Kept as " : "Kept in this project's memory as "}
              <span class="mono">{session.keptAs}</span>
            </>
          )
          : slow
          ? "Keeping…"
          : ""}
      </p>
      {error && <p class="error" role="alert">{error}</p>}
    </header>
  );
}
