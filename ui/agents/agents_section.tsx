import { useEffect, useRef, useState } from "preact/hooks";
import type { AgentDefinitionView, AgentsResponse } from "../../runtime/web/api/chat_types.ts";
import { getJson, messageOf } from "../api/client.ts";
import { type AgentDraft, AgentForm } from "./agent_form.tsx";
import { AgentRow } from "./agent_row.tsx";
import { RemoveAgentDialog } from "./remove_agent_dialog.tsx";

const EMPTY_DRAFT: AgentDraft = { name: "", command: "", args: [], envNames: [] };

/**
 * The installation's agents, on the start page: every definition a
 * conversation or an order can name, and a form to add one or replace one.
 * Presets are definitions Sync knows; their programs are the person's to
 * install. Removing one a person added asks first. Replace… puts the focus
 * in the form it filled; once an agent is saved or removed, the line that
 * says so has it.
 */
export function AgentsSection() {
  const [agents, setAgents] = useState<AgentDefinitionView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState("");
  const [asking, setAsking] = useState<AgentDefinitionView | null>(null);
  const [draft, setDraft] = useState<{ value: AgentDraft; version: number; focus: boolean }>({
    value: EMPTY_DRAFT,
    version: 0,
    focus: false,
  });
  const saidRef = useRef<HTMLParagraphElement>(null);
  // Bumped when what was done is said, so the line takes the focus once it is drawn.
  const [told, setTold] = useState(0);
  useEffect(() => {
    if (told > 0) saidRef.current?.focus();
  }, [told]);
  const reload = async () => {
    try {
      setAgents((await getJson<AgentsResponse>("/api/agents")).agents);
      setError(null);
    } catch (thrown) {
      setError(messageOf(thrown));
    }
  };
  useEffect(() => {
    void reload();
  }, []);
  const removed = async (agent: AgentDefinitionView) => {
    setAsking(null);
    setError(null);
    setSaid(
      agent.origin === "added"
        ? `Removed ${agent.name}.`
        : `Forgot the keys kept for ${agent.name}; it stays.`,
    );
    setTold((count) => count + 1);
    // A form filled to replace it would say what it had; it starts empty again.
    setDraft((before) =>
      before.value.name === agent.name
        ? { value: EMPTY_DRAFT, version: before.version + 1, focus: false }
        : before
    );
    await reload();
  };
  const edit = (agent: AgentDefinitionView) => {
    setSaid("");
    setDraft((before) => ({
      value: {
        name: agent.name,
        command: agent.command,
        args: agent.args,
        envNames: agent.envNames,
      },
      version: before.version + 1,
      focus: true,
    }));
  };
  const saved = async (name: string) => {
    const replaced = agents?.some((agent) => agent.name === name) ?? false;
    setSaid(`${replaced ? "Replaced" : "Added"} ${name}.`);
    setTold((count) => count + 1);
    setDraft((before) => ({ value: EMPTY_DRAFT, version: before.version + 1, focus: false }));
    await reload();
  };
  return (
    <section class="agents-section" aria-labelledby="agents-title">
      <h2 id="agents-title" class="section-title">Agents</h2>
      <p class="tertiary">
        The programs a conversation or an extension's order can run, in every project. Sync runs
        them; it never installs them. An agent spends its own account's tokens.
      </p>
      {error && <p class="error" role="alert">{error}</p>}
      {agents !== null && (
        <ul class="agent-list" aria-label="Agents">
          {agents.map((agent) => (
            <AgentRow
              key={agent.name}
              agent={agent}
              onEdit={edit}
              onRemove={(chosen) => {
                setSaid("");
                setAsking(chosen);
              }}
            />
          ))}
        </ul>
      )}
      <p role="status" class="secondary agents-said" tabIndex={-1} ref={saidRef}>{said}</p>
      <AgentForm
        key={draft.version}
        draft={draft.value}
        focus={draft.focus}
        onSaved={saved}
      />
      {asking && (
        <RemoveAgentDialog
          agent={asking}
          onClose={() => setAsking(null)}
          onRemoved={removed}
        />
      )}
    </section>
  );
}
