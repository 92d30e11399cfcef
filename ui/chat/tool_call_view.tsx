import type { ToolCallEntry, ToolCallStatus } from "../../runtime/web/api/chat_types.ts";

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
  return (
    <article
      class={`chat-entry tool-call tool-${call.status}`}
      aria-label={`Tool call: ${call.title}`}
    >
      <div class="tool-call-top">
        <span class="tool-status-mark" aria-hidden="true" />
        <span class="tool-call-title">{call.title}</span>
        {call.toolKind && <span class="tertiary mono">{call.toolKind}</span>}
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
