import { useEffect, useState } from "preact/hooks";
import type {
  AgentDefinitionView,
  AgentsResponse,
  ChatSessionResponse,
} from "../../runtime/web/api/chat_types.ts";
import { getJson, messageOf, postJson } from "../api/client.ts";
import { Dialog } from "../common/dialog.tsx";
import { Link } from "../common/link.tsx";
import { useDelayed } from "../common/use_delayed.ts";

/** Props of {@linkcode NewConversationDialog}. */
export interface NewConversationDialogProps {
  /** The project folder, as the address gives it. */
  project: string;
  /** Cancel or Escape. */
  onClose: () => void;
  /** Told the session begun. */
  onBegun: (answer: ChatSessionResponse) => void;
}

/**
 * Begins a conversation: choose one of the installation's agents and type
 * the first turn, which starts at once in the project's folder.
 */
export function NewConversationDialog(props: NewConversationDialogProps) {
  const [agents, setAgents] = useState<AgentDefinitionView[] | null>(null);
  const [agent, setAgent] = useState("");
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const slow = useDelayed(busy, 300);
  useEffect(() => {
    getJson<AgentsResponse>("/api/agents").then((answer) => {
      setAgents(answer.agents);
      const first = answer.agents.find((known) => known.name === "demo") ?? answer.agents[0];
      if (first) setAgent((chosen) => chosen || first.name);
    }, (thrown) => setError(messageOf(thrown)));
  }, []);
  const begin = async (event?: Event) => {
    event?.preventDefault();
    if (busy || !agent || text.trim() === "") return;
    setBusy(true);
    setError(null);
    try {
      props.onBegun(
        await postJson<ChatSessionResponse>("/api/chat/sessions", {
          project: props.project,
          agent,
          text,
        }),
      );
    } catch (thrown) {
      // The agent and the text stay, to correct and begin again.
      setError(messageOf(thrown));
      setBusy(false);
    }
  };
  const about = agents?.find((known) => known.name === agent)?.about;
  return (
    <Dialog title="New conversation" onClose={props.onClose} class="new-conversation-dialog">
      <form class="new-conversation" onSubmit={begin}>
        {agents !== null && agents.length === 0
          ? (
            <p class="secondary">
              No agent is defined in this installation. Add one under{" "}
              <Link href="/">Agents, on the start page</Link>.
            </p>
          )
          : (
            <div class="field">
              <label class="field-label" for="new-conversation-agent">Agent</label>
              <select
                id="new-conversation-agent"
                class="input"
                value={agent}
                disabled={agents === null}
                onChange={(event) => setAgent((event.target as HTMLSelectElement).value)}
              >
                {(agents ?? []).map((known) => (
                  <option key={known.name} value={known.name}>{known.name}</option>
                ))}
              </select>
              {about && <span class="tertiary">{about}</span>}
            </div>
          )}
        <div class="field">
          <label class="field-label" for="new-conversation-text">First turn</label>
          <textarea
            id="new-conversation-text"
            class="input new-conversation-text"
            rows={5}
            value={text}
            autofocus
            placeholder="What should the agent do in this project?"
            onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
            onKeyDown={(event) => {
              if (event.key === "Enter" && !event.shiftKey && !event.isComposing) void begin(event);
            }}
            aria-describedby="new-conversation-hint"
          />
          <span id="new-conversation-hint" class="tertiary">
            Enter begins it; Shift+Enter starts a new line. The agent works in this project's
            folder.
          </span>
        </div>
        {error && <p class="error" role="alert">{error}</p>}
        <p role="status" class="tertiary action-status">{slow ? `Starting ${agent}…` : ""}</p>
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>Cancel</button>
          <button
            type="submit"
            class="button primary"
            aria-disabled={busy || !agent || text.trim() === ""}
          >
            Begin
          </button>
        </div>
      </form>
    </Dialog>
  );
}
