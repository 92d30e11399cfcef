import type { ReceiptLine } from "../../runtime/web/api/types.ts";
import { RelativeTime } from "../common/relative_time.tsx";
import { durationWords, occasionWords, outcomeWords } from "./page_words.ts";
import { ReceiptRecords } from "./receipt_records.tsx";
import { useHashTarget } from "./use_hash_target.ts";
import { ReceiptConsole } from "./receipt_console.tsx";
import { ReceiptConversations } from "./receipt_conversations.tsx";

/** Props of {@linkcode ReceiptRow}. */
export interface ReceiptRowProps {
  /** The receipt. */
  receipt: ReceiptLine;
  /** It arrived while the page was open: it slides in. */
  arrived?: boolean;
  /** The project folder, as the address gives it, for the links to what the call began. */
  project: string;
}

/** One attempt: how it ended, why it was called, which handler, when, how long, and its error. */
export function ReceiptRow(props: ReceiptRowProps) {
  const { receipt } = props;
  const target = useHashTarget<HTMLLIElement>(`receipt-${receipt.id}`);
  return (
    <li
      ref={target}
      class={`receipt receipt-${receipt.outcome}${props.arrived ? " arrived" : ""}`}
      data-receipt-id={receipt.id}
      id={`receipt-${receipt.id}`}
      tabIndex={-1}
    >
      <span class="receipt-outcome">
        <span class="outcome-mark" aria-hidden="true" />
        {outcomeWords(receipt.outcome)}
      </span>
      <code class="receipt-handler">{receipt.handler || "every handler"}</code>
      <span class="secondary receipt-occasion">
        {occasionWords(receipt.occasion, receipt.source)}
      </span>
      <span class="tertiary receipt-when">
        <RelativeTime iso={receipt.startedAt} />
        <span class="receipt-duration">{durationWords(receipt.durationMs)}</span>
      </span>
      {receipt.error && <p class="receipt-error">{receipt.error.message}</p>}
      <ReceiptRecords receipt={receipt} />
      <div class="receipt-more">
        <ReceiptConversations receipt={receipt} project={props.project} />
        <ReceiptConsole receipt={receipt} />
      </div>
    </li>
  );
}
