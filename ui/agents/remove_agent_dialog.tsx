import { useState } from "preact/hooks";
import type { AgentDefinitionView } from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { Dialog } from "../common/dialog.tsx";
import { useDelayed } from "../common/use_delayed.ts";

/** Props of {@linkcode RemoveAgentDialog}. */
export interface RemoveAgentDialogProps {
  /** The agent a person added, to remove. */
  agent: AgentDefinitionView;
  /** Cancel or Escape. */
  onClose: () => void;
  /** Told once it is removed. */
  onRemoved: (agent: AgentDefinitionView) => void;
}

/**
 * The confirmation of removing an agent a person added: what goes with it
 * (its command, and its environment, whose values were never shown and
 * cannot be read back), Cancel and Remove, as a package's Remove… asks.
 */
export function RemoveAgentDialog(props: RemoveAgentDialogProps) {
  const { agent } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const slow = useDelayed(busy, 300);
  const command = [agent.command, ...agent.args].join(" ");
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await postJson(`/api/agents/${encodeURIComponent(agent.name)}/remove`, {});
      props.onRemoved(agent);
    } catch (thrown) {
      setBusy(false);
      setError(messageOf(thrown));
    }
  };
  if (agent.origin !== "added") return <ForgetKeysDialog {...props} />;
  return (
    <Dialog title={`Remove the agent ${agent.name}?`} onClose={props.onClose}>
      <div class="removal">
        <h3 class="removal-title">What goes</h3>
        <ul class="removal-list">
          <li>
            Its command: <span class="mono">{command}</span>
          </li>
          {agent.envNames.length > 0 && (
            <li>
              Its environment (<span class="mono">{agent.envNames.join(", ")}</span>). Its values
              were never shown and cannot be read back: to use them again, type them again.
            </li>
          )}
          <li>A new conversation or an order can no longer name it.</li>
        </ul>
        <h3 class="removal-title">What stays</h3>
        <ul class="removal-list">
          <li>The conversations begun with it, and their transcripts.</li>
        </ul>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      <p role="status" class="tertiary action-status">{slow ? `Removing ${agent.name}…` : ""}</p>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose} disabled={busy}>
          Cancel
        </button>
        {/* One button that keeps the focus: while it works it is marked busy, not disabled. */}
        <button
          type="button"
          class="button danger primary"
          onClick={() => !busy && remove()}
          aria-disabled={busy}
          autofocus
        >
          Remove
        </button>
      </div>
    </Dialog>
  );
}

/**
 * The confirmation of forgetting the keys kept beside a preset (or the demo
 * agent), which itself stays: what goes, what stays, Cancel and Forget.
 */
function ForgetKeysDialog(props: RemoveAgentDialogProps) {
  const { agent } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const slow = useDelayed(busy, 300);
  const forget = async () => {
    setBusy(true);
    setError(null);
    try {
      await postJson(`/api/agents/${encodeURIComponent(agent.name)}/remove`, {});
      props.onRemoved(agent);
    } catch (thrown) {
      setBusy(false);
      setError(messageOf(thrown));
    }
  };
  return (
    <Dialog title={`Forget the keys kept for ${agent.name}?`} onClose={props.onClose}>
      <div class="removal">
        <h3 class="removal-title">What goes</h3>
        <ul class="removal-list">
          <li>
            The keys kept for it (<span class="mono">{agent.envNames.join(", ")}</span>). Their
            values were never shown and cannot be read back: to use them again, type them again.
          </li>
        </ul>
        <h3 class="removal-title">What stays</h3>
        <ul class="removal-list">
          <li>The agent {agent.name} itself, as Sync knows it.</li>
          <li>
            What the agent saved itself when it signed in with a key: codex, for one, keeps a copy
            in <span class="mono">~/.codex</span>. Sign out in the agent to remove that.
          </li>
          <li>The conversations begun with it, and their transcripts.</li>
        </ul>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      <p role="status" class="tertiary action-status">{slow ? `Forgetting the keys…` : ""}</p>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose} disabled={busy}>
          Cancel
        </button>
        <button
          type="button"
          class="button danger primary"
          onClick={() => !busy && forget()}
          aria-disabled={busy}
          autofocus
        >
          Forget
        </button>
      </div>
    </Dialog>
  );
}
