import type { RecordWriterLine } from "../../runtime/web/api/records_types.ts";
import { Link } from "../common/link.tsx";
import { RelativeTime } from "../common/relative_time.tsx";
import { occasionWords, outcomeWords } from "../extensions/page_words.ts";
import { projectPath } from "../state/route.ts";

/** Props of {@linkcode RecordWriters}. */
export interface RecordWritersProps {
  /** The project folder, as the address gives it. */
  project: string;
  /** Who wrote the record's newest revisions, newest first. */
  writers: RecordWriterLine[];
}

/**
 * "Written by": each of the record's newest revisions with who wrote it, and
 * for a handler's call its receipt — handler, occasion, outcome — linked to
 * the receipt on the extension's page.
 */
export function RecordWriters(props: RecordWritersProps) {
  return (
    <section class="page-section" aria-labelledby="record-writers-title">
      <div class="section-head">
        <h3 id="record-writers-title" class="section-title">Written by</h3>
        <span class="tertiary">Its newest revisions, and the calls that wrote them</span>
      </div>
      <ol class="plain-list record-writers">
        {props.writers.map((writer) => (
          <li key={writer.revision} class="record-writer">
            <span class="record-writer-revision">Revision {writer.revision}</span>
            {writer.receipt
              ? (
                <Link
                  href={`${projectPath(props.project, "extensions", writer.by)}#receipt-${
                    encodeURIComponent(writer.receipt.id)
                  }`}
                  class="record-writer-receipt"
                >
                  <code>{writer.receipt.handler}</code>
                  <span class="secondary">
                    {" · "}
                    {occasionWords(writer.receipt.occasion, writer.receipt.source)} ·{" "}
                    {outcomeWords(writer.receipt.outcome)}
                  </span>
                </Link>
              )
              : (
                <span class="secondary">
                  {writer.by === "person"
                    ? "A person, outside any handler"
                    : writer.receiptId
                    ? `${writer.by}: its receipt is no longer kept`
                    : writer.by}
                </span>
              )}
            <span class="tertiary">
              <RelativeTime iso={writer.at} />
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
