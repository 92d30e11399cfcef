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

/** A few words for why an agent is not ready, beside its name in the choice. */
function readinessWord(state: AgentDefinitionView["readiness"]["state"]): string {
  switch (state) {
    case "not-installed":
      return "not installed";
    case "command-not-found":
      return "command not found";
    case "needs-sign-in":
      return "needs sign-in";
    case "ready":
      return "ready";
  }
}

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
 * the first turn, which starts at once in the project's folder. The agents
 * that are ready come first and one of them is chosen; one that is not
 * ready (not installed, its command not found, waiting for a sign-in) says
 * why under the choice, and what to do.
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
      const ready = answer.agents.filter((known) => known.readiness.state === "ready");
      // Never one that is not ready, while one is: the demo agent, else the first ready.
      const first = ready.find((known) => known.name === "demo") ?? ready[0] ??
        answer.agents[0];
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
  const chosen = agents?.find((known) => known.name === agent);
  const about = chosen?.about;
  const readiness = chosen?.readiness;
  const ready = (agents ?? []).filter((known) => known.readiness.state === "ready");
  const unready = (agents ?? []).filter((known) => known.readiness.state !== "ready");
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
                aria-describedby="new-conversation-agent-about"
                onChange={(event) => setAgent((event.target as HTMLSelectElement).value)}
              >
                {ready.length > 0 && (
                  <optgroup label="Ready">
                    {ready.map((known) => (
                      <option key={known.name} value={known.name}>{known.name}</option>
                    ))}
                  </optgroup>
                )}
                {unready.length > 0 && (
                  <optgroup label="Not ready">
                    {unready.map((known) => (
                      <option key={known.name} value={known.name}>
                        {known.name} — {readinessWord(known.readiness.state)}
                      </option>
                    ))}
                  </optgroup>
                )}
              </select>
              <div id="new-conversation-agent-about" class="new-conversation-agent-about">
                {readiness && readiness.state !== "ready" && (
                  <p class="agent-not-ready">
                    Not ready: {readiness.why}.{" "}
                    {readiness.todo}. You can begin anyway: your first turn is kept, and sent once
                    {readiness.state === "needs-sign-in"
                      ? " you sign in and continue."
                      : " the agent starts (press Continue once it is fixed)."}
                  </p>
                )}
                {about && <p class="tertiary">{about}</p>}
              </div>
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
