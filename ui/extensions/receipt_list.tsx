import type { ReceiptLine } from "../../runtime/web/api/types.ts";
import { occasionWords, outcomeWords } from "./page_words.ts";
import { ReceiptRow } from "./receipt_row.tsx";

/** Props of {@linkcode ReceiptList}. */
export interface ReceiptListProps {
  /** The receipts, newest first. */
  receipts: ReceiptLine[];
  /** The ids of those that arrived while the page was open. */
  arrived: ReadonlySet<string>;
  /** The newest that arrived while the page was open, announced once; null when none has. */
  newest: ReceiptLine | null;
  /** The project folder, as the address gives it. */
  project: string;
}

/**
 * The receipts section: every attempt of the package's handlers here, newest
 * first, kept live. A receipt that arrives slides in at the top and only the
 * newest is announced, so a busy package does not flood a screen reader.
 */
export function ReceiptList(props: ReceiptListProps) {
  const { receipts, newest } = props;
  return (
    <section class="page-section" aria-labelledby="receipts-title">
      <div class="section-head">
        <h3 id="receipts-title" class="section-title">Receipts</h3>
        <span class="tertiary">Every call of its handlers here, newest first</span>
      </div>
      <p class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
        {newest
          ? `New receipt: ${newest.handler || "every handler"} ${
            outcomeWords(newest.outcome).toLowerCase()
          }, ${occasionWords(newest.occasion, newest.source).toLowerCase()}`
          : ""}
      </p>
      {receipts.length === 0
        ? <p class="secondary">Nothing has run here yet. Each call will leave a receipt here.</p>
        : (
          <ol class="plain-list receipt-list" aria-label="Receipts">
            {receipts.map((receipt) => (
              <ReceiptRow
                key={receipt.id}
                receipt={receipt}
                arrived={props.arrived.has(receipt.id)}
                project={props.project}
              />
            ))}
          </ol>
        )}
    </section>
  );
}
