import { useState } from "preact/hooks";
import type { ChatSessionResponse, SignInWay } from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { AgentWords } from "./agent_words.tsx";

/** Props of {@linkcode SignInWayView}. */
export interface SignInWayViewProps {
  /** The way, as the session's sign-in wait lists it. */
  way: SignInWay;
  /** The agent's name in Sync, whose definition a key is saved into. */
  agent: string;
  /** The session's key, continued once a key is saved. */
  sessionKey: string;
  /** The project folder, as the address gives it. */
  project: string;
  /** Told the session as continuing left it. */
  onSession: (answer: ChatSessionResponse) => void;
}

/**
 * One way to sign in to an agent, with its action: a command to copy and
 * run in a terminal, or a form that saves each key the way reads into the
 * agent's definition (never shown again) and continues. The agent's words
 * are shown as text.
 */
export function SignInWayView(props: SignInWayViewProps) {
  const { way } = props;
  const needed = (way.envVars ?? []).filter((v) => !v.optional);
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const id = `sign-in-${way.id.replace(/[^A-Za-z0-9_-]/g, "_")}`;

  const save = async () => {
    if (busy || needed.some((v) => (values[v.name] ?? "") === "")) return;
    setBusy(true);
    setSaid(null);
    try {
      for (const v of needed) {
        await postJson(`/api/agents/${encodeURIComponent(props.agent)}/env`, {
          name: v.name,
          value: values[v.name],
        });
      }
      setValues({});
      props.onSession(
        await postJson<ChatSessionResponse>(
          `/api/chat/sessions/${encodeURIComponent(props.sessionKey)}/continue`,
          { project: props.project },
        ),
      );
      setSaid("Saved. Signing in…");
    } catch (thrown) {
      setSaid(messageOf(thrown));
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class="sign-in-way" aria-labelledby={`${id}-name`}>
      <div id={`${id}-name`} class="sign-in-way-name">{way.name}</div>
      {way.description && (
        <div class="secondary">
          <AgentWords text={way.description} />
        </div>
      )}
      {way.command && (
        <div class="sign-in-way-command">
          <span class="tertiary">Run in a terminal, then press Continue:</span>
          <pre class="chat-pre sign-in-command"><code>{way.command}</code></pre>
          <button
            type="button"
            class="button"
            aria-label={`Copy the command for ${way.name}`}
            onClick={() =>
              navigator.clipboard?.writeText(way.command!).then(() => setSaid("Copied."))}
          >
            Copy
          </button>
        </div>
      )}
      {needed.length > 0 && (
        <form
          class="sign-in-way-form"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          {needed.map((v) => (
            <label key={v.name} class="sign-in-way-field">
              <span>
                {v.name}
                {v.label ? ` (${v.label})` : ""} for the agent {props.agent}
              </span>
              <input
                class="input"
                type="password"
                autocomplete="off"
                value={values[v.name] ?? ""}
                onInput={(event) =>
                  setValues({ ...values, [v.name]: (event.target as HTMLInputElement).value })}
              />
            </label>
          ))}
          <button type="submit" class="button" aria-disabled={busy}>
            Save in the agent's definition and continue
          </button>
        </form>
      )}
      {way.link && <a href={way.link} target="_blank" rel="noreferrer noopener">Where to get it</a>}
      {said && <p class="tertiary" role="status">{said}</p>}
    </li>
  );
}
