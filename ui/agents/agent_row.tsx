import type { AgentDefinitionView } from "../../runtime/web/api/chat_types.ts";

/** Props of {@linkcode AgentRow}. */
export interface AgentRowProps {
  /** The definition. */
  agent: AgentDefinitionView;
  /** Fills the form with it, to replace it. */
  onEdit: (agent: AgentDefinitionView) => void;
  /**
   * Asks to remove it: offered for one a person added, and for a preset (or
   * the demo agent) with keys kept beside it, which are what goes.
   */
  onRemove: (agent: AgentDefinitionView) => void;
}

const ORIGIN_WORDS: Record<AgentDefinitionView["origin"], string> = {
  preset: "Preset",
  added: "Added here",
  bundled: "Comes with Sync",
};

/** One agent definition: its name, where it comes from, the command it runs, and what it needs. */
export function AgentRow(props: AgentRowProps) {
  const { agent } = props;
  const command = [agent.command, ...agent.args].join(" ");
  return (
    <li class="agent-row">
      <div class="agent-main">
        <div class="agent-top">
          <span class="primary mono agent-name">{agent.name}</span>
          <span class="tertiary">
            {Object.hasOwn(ORIGIN_WORDS, agent.origin) ? ORIGIN_WORDS[agent.origin] : agent.origin}
          </span>
        </div>
        <span class="secondary agent-about">{agent.about}</span>
        <span class="tertiary mono agent-command" title={command}>{command}</span>
        {agent.envNames.length > 0 && (
          <span class="tertiary">
            Environment: <span class="mono">{agent.envNames.join(", ")}</span>
          </span>
        )}
      </div>
      <div class="agent-actions">
        {agent.origin !== "bundled" && (
          <button
            type="button"
            class="button"
            aria-label={`Replace ${agent.name}`}
            onClick={() => props.onEdit(agent)}
          >
            Replace…
          </button>
        )}
        {agent.origin === "added" && (
          <button
            type="button"
            class="button danger"
            aria-label={`Remove ${agent.name}…`}
            aria-haspopup="dialog"
            onClick={() => props.onRemove(agent)}
          >
            Remove…
          </button>
        )}
        {agent.origin !== "added" && agent.envNames.length > 0 && (
          <button
            type="button"
            class="button danger"
            aria-label={`Forget the keys kept for ${agent.name}…`}
            aria-haspopup="dialog"
            onClick={() => props.onRemove(agent)}
          >
            Forget keys…
          </button>
        )}
      </div>
    </li>
  );
}
