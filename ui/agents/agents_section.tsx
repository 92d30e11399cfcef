import { useEffect, useState } from "preact/hooks";
import type { AgentDefinitionView, AgentsResponse } from "../../runtime/web/api/chat_types.ts";
import { getJson, messageOf, postJson } from "../api/client.ts";
import { type AgentDraft, AgentForm } from "./agent_form.tsx";
import { AgentRow } from "./agent_row.tsx";

const EMPTY_DRAFT: AgentDraft = { name: "", command: "", args: [], envNames: [] };

/**
 * The installation's agents, on the start page: every definition a
 * conversation or an order can name, and a form to add one or replace one.
 * Presets are definitions Sync knows; their programs are the person's to
 * install.
 */
export function AgentsSection() {
  const [agents, setAgents] = useState<AgentDefinitionView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [draft, setDraft] = useState<{ value: AgentDraft; version: number }>({
    value: EMPTY_DRAFT,
    version: 0,
  });
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
  const remove = async (agent: AgentDefinitionView) => {
    setBusy(agent.name);
    setSaid("");
    setError(null);
    try {
      await postJson(`/api/agents/${encodeURIComponent(agent.name)}/remove`, {});
      setSaid(`Removed ${agent.name}.`);
      await reload();
    } catch (thrown) {
      setError(messageOf(thrown));
    } finally {
      setBusy(null);
    }
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
    }));
    document.getElementById("agent-form-title")?.scrollIntoView({ block: "nearest" });
  };
  const saved = async (name: string) => {
    const replaced = agents?.some((agent) => agent.name === name) ?? false;
    setSaid(`${replaced ? "Replaced" : "Added"} ${name}.`);
    setDraft((before) => ({ value: EMPTY_DRAFT, version: before.version + 1 }));
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
              busy={busy === agent.name}
              onEdit={edit}
              onRemove={remove}
            />
          ))}
        </ul>
      )}
      <p role="status" class="secondary agents-said">{said}</p>
      <AgentForm key={draft.version} draft={draft.value} onSaved={saved} />
    </section>
  );
}
