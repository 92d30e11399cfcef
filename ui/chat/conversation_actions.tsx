import { useState } from "preact/hooks";
import type {
  AgentSession,
  ChatDeleteResponse,
  ChatSessionResponse,
} from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { useDelayed } from "../common/use_delayed.ts";
import { DeleteConversationDialog } from "./delete_conversation_dialog.tsx";

/** Props of {@linkcode ConversationActions}. */
export interface ConversationActionsProps {
  /** The session's pointer. */
  session: AgentSession;
  /** The project folder, as the address gives it. */
  project: string;
  /** Told the session as Archive or Restore left it. */
  onSession: (answer: ChatSessionResponse) => void;
  /** Told the conversation was deleted. */
  onDeleted: () => void;
}

/**
 * Archive (or Restore, for an archived one) and Delete… for a conversation
 * nothing moves. While its agent works or waits for a person, they say that
 * its turn must be cancelled first, rather than doing nothing.
 */
export function ConversationActions(props: ConversationActionsProps) {
  const { session } = props;
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ text: string; error: boolean } | null>(null);
  const [asking, setAsking] = useState(false);
  const slow = useDelayed(busy, 300);
  const active = session.state === "running" || session.state === "waiting" ||
    session.state === "ordered";
  const archived = Boolean(session.archivedAt);
  const stopFirst = () =>
    setSaid({
      text: `It is ${
        session.state === "waiting" ? "waiting" : "running"
      }: cancel its turn first, then archive or delete it.`,
      error: false,
    });
  const archive = async () => {
    if (busy) return;
    if (active && !archived) return stopFirst();
    setBusy(true);
    setSaid(null);
    try {
      const answer = await postJson<ChatSessionResponse>(
        `/api/chat/sessions/${encodeURIComponent(session.key)}/archive`,
        { project: props.project, archived: !archived },
      );
      props.onSession(answer);
      setSaid({
        text: archived
          ? "Restored to the list."
          : "Archived: Chat lists it under Archived, apart from the rest.",
        error: false,
      });
    } catch (thrown) {
      setSaid({ text: messageOf(thrown), error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        class="button"
        aria-disabled={busy || (active && !archived)}
        onClick={archive}
      >
        {archived ? "Restore" : "Archive"}
      </button>
      <button
        type="button"
        class="button danger"
        aria-disabled={busy || active}
        onClick={() => {
          if (active) return stopFirst();
          setSaid(null);
          setAsking(true);
        }}
      >
        Delete…
      </button>
      <p
        class={`chat-action-said ${said?.error ? "error" : "tertiary"}`}
        role={said?.error ? "alert" : "status"}
      >
        {slow ? (archived ? "Restoring…" : "Archiving…") : said?.text ?? ""}
      </p>
      {asking && (
        <DeleteConversationDialog
          session={session}
          project={props.project}
          onClose={() => setAsking(false)}
          onDeleted={(_: ChatDeleteResponse) => {
            setAsking(false);
            props.onDeleted();
          }}
        />
      )}
    </>
  );
}
