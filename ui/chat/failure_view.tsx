import type { FailureEntry } from "../../runtime/web/api/chat_types.ts";

/** Props of {@linkcode FailureView}. */
export interface FailureViewProps {
  /** What failed, and the last of the agent's stderr. */
  entry: FailureEntry;
}

/** A failure: the reason, then the last of what the agent wrote on stderr. */
export function FailureView(props: FailureViewProps) {
  const { entry } = props;
  return (
    <article class="chat-entry failure" aria-label="Failure">
      <p class="error">{entry.message}</p>
      {entry.stderrTail && (
        <div class="failure-stderr">
          <div class="tertiary">The last the agent wrote on stderr</div>
          <pre class="chat-pre">{entry.stderrTail}</pre>
        </div>
      )}
    </article>
  );
}
