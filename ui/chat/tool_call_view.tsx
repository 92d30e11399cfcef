import type { ToolCallEntry, ToolCallStatus } from "../../runtime/web/api/chat_types.ts";
import { toolKindWords, toolTitleWords } from "./tool_words.ts";

/** Props of {@linkcode ToolCallView}. */
export interface ToolCallViewProps {
  /** The call, with every update the agent sent for it merged in. */
  call: ToolCallEntry;
}

const STATUS_WORDS: Record<ToolCallStatus, string> = {
  pending: "Pending",
  in_progress: "Running",
  completed: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** A tool call the agent made: what it does, how far it is, the files it touches, and what it produced. */
export function ToolCallView(props: ToolCallViewProps) {
  const { call } = props;
  // The agent names the status: only the words kept here for it, never what every object inherits.
  const status = Object.hasOwn(STATUS_WORDS, call.status) ? STATUS_WORDS[call.status] : call.status;
  const title = toolTitleWords(call.title);
  const kind = toolKindWords(call.toolKind);
  return (
    <article
      class={`chat-entry tool-call tool-${call.status}`}
      aria-label={`Tool call: ${title}`}
    >
      <div class="tool-call-top">
        <span class="tool-status-mark" aria-hidden="true" />
        <span class="tool-call-title" title={title === call.title ? undefined : call.title}>
          {title}
        </span>
        {kind && <span class="tertiary mono">{kind}</span>}
        <span class={`tool-status tertiary`}>{status}</span>
      </div>
      {call.paths && call.paths.length > 0 && (
        <ul class="tool-call-paths">
          {call.paths.map((path) => <li key={path} class="mono tertiary">{path}</li>)}
        </ul>
      )}
      {call.text && (
        <details class="tool-call-output">
          <summary class="tertiary">What it shows</summary>
          <pre class="chat-pre">{call.text}</pre>
        </details>
      )}
    </article>
  );
}
