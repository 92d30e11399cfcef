import type { ThoughtEntry } from "../../runtime/web/api/chat_types.ts";

/** Props of {@linkcode ThoughtView}. */
export interface ThoughtViewProps {
  /** The thought, its chunks joined. */
  entry: ThoughtEntry;
}

/** The agent's reasoning: quieter than its reply, folded to its first line until opened. */
export function ThoughtView(props: ThoughtViewProps) {
  const text = props.entry.text.trim();
  const first = text.split("\n", 1)[0];
  return (
    <details class="chat-entry thought">
      <summary class="thought-summary">
        <span class="thought-label">Thought</span>
        <span class="thought-first">{first}</span>
      </summary>
      <div class="thought-text">{text}</div>
    </details>
  );
}
