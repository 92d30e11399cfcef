import type { FailureEntry } from "../../runtime/web/api/chat_types.ts";
import { AgentWords } from "./agent_words.tsx";

/** Props of {@linkcode FailureView}. */
export interface FailureViewProps {
  /** What failed, and the last of the agent's stderr. */
  entry: FailureEntry;
}

/**
 * A failure: the reason, its commands drawn as code, then the last of what
 * the agent wrote on stderr, unless the reason quotes it already. A turn
 * Sync stopped because the person cancelled it is said quietly, as
 * Cancelled: the person asked for it, nothing went wrong.
 */
export function FailureView(props: FailureViewProps) {
  const { entry } = props;
  const tail = entry.stderrTail?.trim() ?? "";
  const quoted = tail !== "" && entry.message.includes(tail);
  if (entry.cancelled) {
    return (
      <article class="chat-entry turn-cancelled" aria-label="Cancelled">
        <p class="secondary">
          <span class="turn-cancelled-word">Cancelled.</span> <AgentWords text={entry.message} />
        </p>
      </article>
    );
  }
  return (
    <article class="chat-entry failure" aria-label="Failure">
      {entry.message.split(/\n\s*\n/).map((paragraph, index) => (
        <p key={index} class="error">
          <AgentWords text={paragraph} />
        </p>
      ))}
      {tail !== "" && !quoted && (
        <div class="failure-stderr">
          <div class="tertiary">What the agent last wrote on stderr</div>
          <pre class="chat-pre">{entry.stderrTail}</pre>
        </div>
      )}
    </article>
  );
}
