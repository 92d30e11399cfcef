import type { RunResponse } from "../../runtime/web/api/types.ts";
import { durationWords, outcomeWords } from "./page_words.ts";
import { showReceipt } from "./show_receipt.ts";

/** Props of {@linkcode RunResult}. */
export interface RunResultProps {
  /** The handler that ran. */
  handler: string;
  /** How the call ended, as the server answered. */
  result: RunResponse;
}

/**
 * How a Run now ended: the outcome and how long it took, a link to its
 * receipt below, and what it answered — text as text, anything else as
 * laid-out JSON, cut where the server cut it — or why it failed.
 */
export function RunResult(props: RunResultProps) {
  const { result } = props;
  const { receipt, answer } = result;
  return (
    <div class={`run-result run-${result.outcome}`}>
      <p class="run-summary">
        <span class="run-outcome">
          <span class="outcome-mark" aria-hidden="true" />
          {outcomeWords(result.outcome)}
        </span>
        <span class="tertiary">in {durationWords(receipt.durationMs)}</span>
        <a
          href={`#receipt-${receipt.id}`}
          onClick={(event) => {
            event.preventDefault();
            showReceipt(receipt.id);
          }}
        >
          See its receipt
        </a>
      </p>
      {result.error && <p class="error run-error">{result.error.message}</p>}
      {answer?.kind === "none" && <p class="secondary">It answered nothing.</p>}
      {answer && answer.kind !== "none" && (
        <>
          <pre
            class={`run-answer${answer.kind === "json" ? " mono" : ""}`}
            tabIndex={0}
            aria-label={`What ${props.handler} answered`}
          >{answer.text}</pre>
          {answer.cut && (
            <p class="tertiary">
              The answer is longer than the page shows; its end is cut, as marked.
            </p>
          )}
        </>
      )}
    </div>
  );
}
