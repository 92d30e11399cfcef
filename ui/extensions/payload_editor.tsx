import { useRef } from "preact/hooks";
import type { JsonProblem } from "./json_problem.ts";

/** Props of {@linkcode PayloadEditor}. */
export interface PayloadEditorProps {
  /** The handler's name, for the field's id and label. */
  handler: string;
  /** The text typed so far. */
  text: string;
  /** Told each change. */
  onText: (text: string) => void;
  /** The declared fields in a line; null when the handler declares no input. */
  fields: string | null;
  /** Where the JSON is wrong, when it is. */
  problem: JsonProblem | null;
  /** What does not fit the declared input, one sentence each. */
  misfits: string[];
  /** Ctrl+Enter or ⌘+Enter runs. */
  onRun: () => void;
}

/**
 * The payload a person sends with Run now: JSON in a text area, with the
 * fields the handler declares above it, and, when it is wrong, where and
 * why below it, the field marked invalid and the caret put at the mistake.
 */
export function PayloadEditor(props: PayloadEditorProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const id = `payload-${props.handler}`;
  const hintId = `${id}-hint`;
  const problemId = `${id}-problem`;
  const wrong = props.problem !== null || props.misfits.length > 0;
  const rows = Math.min(12, Math.max(4, props.text.split("\n").length + 1));
  return (
    <div class="payload-editor">
      <label class="field-label" for={id}>Payload for {props.handler}, as JSON</label>
      <p id={hintId} class="tertiary payload-hint">
        {props.fields
          ? <>It takes: {props.fields}</>
          : "It declares no payload; whatever you send, it is given as it is. Leave it empty to send none."}
      </p>
      <textarea
        id={id}
        ref={area}
        class="input payload-text"
        rows={rows}
        spellcheck={false}
        autocomplete="off"
        value={props.text}
        aria-invalid={wrong ? "true" : undefined}
        aria-describedby={wrong ? `${hintId} ${problemId}` : hintId}
        onInput={(event) => props.onText((event.target as HTMLTextAreaElement).value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            props.onRun();
          }
        }}
      />
      <div id={problemId} class="payload-problem" role="alert">
        {props.problem && (
          <p class="error">
            Not JSON yet.{" "}
            <button
              type="button"
              class="link-button"
              onClick={() => {
                const field = area.current;
                if (!field || !props.problem) return;
                field.focus();
                field.setSelectionRange(props.problem.offset, props.problem.offset + 1);
              }}
            >
              Line {props.problem.line}, column {props.problem.column}
            </button>
            : {props.problem.message}.
          </p>
        )}
        {!props.problem && props.misfits.length > 0 && (
          <ul class="error payload-misfits">
            {props.misfits.map((misfit) => <li key={misfit}>{misfit}</li>)}
          </ul>
        )}
      </div>
    </div>
  );
}
