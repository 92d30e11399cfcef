import { useState } from "preact/hooks";
import type { AgentSession, ChatDeleteResponse } from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { Dialog } from "../common/dialog.tsx";
import { useDelayed } from "../common/use_delayed.ts";

/** Props of {@linkcode DeleteConversationDialog}. */
export interface DeleteConversationDialogProps {
  /** The conversation to delete. */
  session: AgentSession;
  /** The project folder, as the address gives it. */
  project: string;
  /** Cancel or Escape. */
  onClose: () => void;
  /** Told once it is deleted. */
  onDeleted: (answer: ChatDeleteResponse) => void;
}

/**
 * The confirmation of deleting a conversation: what goes (its transcript,
 * its messages not sent, its place in Chat) and what stays (a record it was
 * kept as, and whatever the agent changed in the project). Cancel has the
 * focus: deleting cannot be undone.
 */
export function DeleteConversationDialog(props: DeleteConversationDialogProps) {
  const { session } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const slow = useDelayed(busy, 300);
  const remove = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      props.onDeleted(
        await postJson<ChatDeleteResponse>(
          `/api/chat/sessions/${encodeURIComponent(session.key)}/delete`,
          { project: props.project },
        ),
      );
    } catch (thrown) {
      setBusy(false);
      setError(messageOf(thrown));
    }
  };
  const waits = session.pending?.length ?? 0;
  return (
    <Dialog title="Delete this conversation?" onClose={props.onClose}>
      <p class="secondary delete-conversation-title">{session.title}</p>
      <div class="removal">
        <h3 class="removal-title">What goes</h3>
        <ul class="removal-list">
          <li>Its transcript, from Chat and from sync chat. It cannot be brought back.</li>
          {waits > 0 && (
            <li>
              The {waits === 1 ? "message" : `${waits} messages`} not sent to the agent yet.
            </li>
          )}
        </ul>
        <h3 class="removal-title">What stays</h3>
        <ul class="removal-list">
          {session.keptAs !== null && (
            <li>
              The record it was kept as,{" "}
              <span class="mono">{session.keptAs}</span>, in the project's memory.
            </li>
          )}
          <li>What the agent changed in the project's files.</li>
        </ul>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      <p role="status" class="tertiary action-status">{slow ? "Deleting…" : ""}</p>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose} autofocus>
          Cancel
        </button>
        <button
          type="button"
          class="button danger primary"
          aria-disabled={busy}
          onClick={remove}
        >
          Delete
        </button>
      </div>
    </Dialog>
  );
}
