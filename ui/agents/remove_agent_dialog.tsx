import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { AgentDefinitionView } from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { Dialog } from "../common/dialog.tsx";
import { useDelayed } from "../common/use_delayed.ts";

/** Props of {@linkcode RemoveAgentDialog}. */
export interface RemoveAgentDialogProps {
  /** The agent a person added, to remove; or a preset (or the demo agent) whose kept keys go. */
  agent: AgentDefinitionView;
  /** Cancel or Escape. */
  onClose: () => void;
  /** Told once it is removed. */
  onRemoved: (agent: AgentDefinitionView) => void;
}

/**
 * The confirmation of removing an agent, as a package's Remove… asks: what
 * goes and what stays, Cancel and the action. For an agent a person added,
 * the definition goes (its command, and its environment, whose values were
 * never shown and cannot be read back); for a preset, only the keys kept
 * beside it go, and the preset stays.
 */
export function RemoveAgentDialog(props: RemoveAgentDialogProps) {
  const { agent } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const slow = useDelayed(busy, 300);
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
  const words = agent.origin === "added" ? removalWords(agent) : forgettingWords(agent);
  return (
    <Dialog title={words.title} onClose={props.onClose}>
      <div class="removal">
        <h3 class="removal-title">What goes</h3>
        <ul class="removal-list">{words.goes}</ul>
        <h3 class="removal-title">What stays</h3>
        <ul class="removal-list">{words.stays}</ul>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      <p role="status" class="tertiary action-status">{slow ? words.busy : ""}</p>
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
          {words.action}
        </button>
      </div>
    </Dialog>
  );
}

/** What the dialog says, for one kind of removal. */
interface RemovalWords {
  title: string;
  goes: ComponentChildren;
  stays: ComponentChildren;
  busy: string;
  action: string;
}

/** Removing an agent a person added: its definition goes. */
function removalWords(agent: AgentDefinitionView): RemovalWords {
  const command = [agent.command, ...agent.args].join(" ");
  return {
    title: `Remove the agent ${agent.name}?`,
    goes: (
      <>
        <li>
          Its command: <span class="mono">{command}</span>
        </li>
        {agent.envNames.length > 0 && (
          <li>
            Its environment (<span class="mono">{agent.envNames.join(", ")}</span>). Its values were
            never shown and cannot be read back: to use them again, type them again.
          </li>
        )}
        <li>A new conversation or an order can no longer name it.</li>
      </>
    ),
    stays: <li>The conversations begun with it, and their transcripts.</li>,
    busy: `Removing ${agent.name}…`,
    action: "Remove",
  };
}

/** Forgetting the keys kept beside a preset (or the demo agent): it stays. */
function forgettingWords(agent: AgentDefinitionView): RemovalWords {
  return {
    title: `Forget the keys kept for ${agent.name}?`,
    goes: (
      <li>
        The keys kept for it (<span class="mono">{agent.envNames.join(", ")}</span>). Their values
        were never shown and cannot be read back: to use them again, type them again.
      </li>
    ),
    stays: (
      <>
        <li>The agent {agent.name} itself, as Sync knows it.</li>
        <li>
          What the agent saved itself when it signed in with a key: codex, for one, keeps a copy in
          {" "}
          <span class="mono">~/.codex</span>. Sign out in the agent to remove that.
        </li>
        <li>The conversations begun with it, and their transcripts.</li>
      </>
    ),
    busy: "Forgetting the keys…",
    action: "Forget",
  };
}
