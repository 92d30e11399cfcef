import { useEffect, useRef, useState } from "preact/hooks";
import { messageOf, postJson } from "../api/client.ts";

/** What the form starts from: empty, or an agent to replace. */
export interface AgentDraft {
  /** The name. */
  name: string;
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** The names of the environment variables it has; their values are never shown. */
  envNames: string[];
}

/** Props of {@linkcode AgentForm}. */
export interface AgentFormProps {
  /** What the fields start with. */
  draft: AgentDraft;
  /** Takes the focus when drawn, in the field to change first: filled by Replace…. */
  focus?: boolean;
  /** Told the name added or replaced. */
  onSaved: (name: string) => void;
}

/**
 * Adds an agent definition, or replaces one of the same name: its name, the
 * program and its arguments (one a line), and extra environment as
 * `NAME=value` lines. Filled to replace an agent, it takes the focus in its
 * Command field, the name being the one to keep.
 */
export function AgentForm(props: AgentFormProps) {
  const { draft } = props;
  const [name, setName] = useState(draft.name);
  const [command, setCommand] = useState(draft.command);
  const [args, setArgs] = useState(draft.args.join("\n"));
  const [env, setEnv] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const commandField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (props.focus) commandField.current?.focus();
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const parsed = parseEnv(env);
    if (typeof parsed === "string") {
      setError(parsed);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await postJson("/api/agents", {
        name: name.trim(),
        command: command.trim(),
        args: args.split("\n").map((line) => line.trim()).filter((line) => line !== ""),
        env: parsed,
      });
      props.onSaved(name.trim());
    } catch (thrown) {
      // The fields keep what was typed, to correct.
      setError(messageOf(thrown));
    } finally {
      setBusy(false);
    }
  };
  const field = (setter: (value: string) => void) => (event: Event) =>
    setter((event.target as HTMLInputElement | HTMLTextAreaElement).value);
  return (
    <form class="agent-form" onSubmit={submit} aria-labelledby="agent-form-title">
      <h3 id="agent-form-title" class="agent-form-title">Add or replace an agent</h3>
      <div class="agent-form-row">
        <label class="field">
          <span class="field-label">Name</span>
          <input
            class="input mono"
            value={name}
            onInput={field(setName)}
            required
            spellcheck={false}
            autocomplete="off"
            placeholder="my-agent"
          />
        </label>
        <label class="field agent-form-command">
          <span class="field-label">Command</span>
          <input
            ref={commandField}
            class="input mono"
            value={command}
            onInput={field(setCommand)}
            required
            spellcheck={false}
            autocomplete="off"
            placeholder="npx"
          />
        </label>
      </div>
      <div class="agent-form-row">
        <label class="field">
          <span class="field-label">Arguments, one a line</span>
          <textarea
            class="input mono"
            rows={3}
            value={args}
            onInput={field(setArgs)}
            spellcheck={false}
            placeholder="--acp"
          />
        </label>
        <div class="field">
          <label class="field-label" for="agent-env">Environment, NAME=value a line</label>
          <textarea
            id="agent-env"
            class="input mono"
            rows={3}
            value={env}
            onInput={field(setEnv)}
            spellcheck={false}
            aria-describedby="agent-env-hint"
          />
          <span id="agent-env-hint" class="tertiary">
            {draft.envNames.length > 0
              ? `Values are never shown. Replacing sets the environment to these lines; it had ${
                draft.envNames.join(", ")
              }.`
              : "Values are never shown again once saved."}
          </span>
        </div>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      <div class="agent-form-actions">
        <button type="submit" class="button primary" aria-disabled={busy}>Save agent</button>
      </div>
    </form>
  );
}

/** `NAME=value` lines as an object; a sentence saying which line is wrong when one is. */
function parseEnv(text: string): Record<string, string> | string {
  // A Map, made an object by defining each name: `__proto__=x` is a variable like any other.
  const env = new Map<string, string>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const at = line.indexOf("=");
    if (at <= 0) {
      return `Environment line ${i + 1} is not NAME=value: write it as NAME=value, or remove it.`;
    }
    env.set(line.slice(0, at).trim(), line.slice(at + 1));
  }
  return Object.fromEntries(env);
}
