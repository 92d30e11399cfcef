import type { Receipt } from "../../runtime/web/api/types.ts";
import { Link } from "../common/link.tsx";
import { recordPath, route } from "../state/route.ts";

/** Props of {@linkcode ReceiptRecords}. */
export interface ReceiptRecordsProps {
  /** The receipt. */
  receipt: Receipt;
}

/**
 * The records a call wrote, under its receipt: each a link to the record in
 * Records, and how many more the receipt left out.
 */
export function ReceiptRecords(props: ReceiptRecordsProps) {
  const records = props.receipt.records ?? [];
  if (records.length === 0) return null;
  const here = route.value;
  const project = here.page === "project" ? here.project : props.receipt.project;
  const leftOut = props.receipt.recordsLeftOut ?? 0;
  return (
    <p class="receipt-records">
      <span class="tertiary">Wrote</span>{" "}
      {records.map((record, index) => (
        <span key={`${record.kind}/${record.name}`}>
          {index > 0 && ", "}
          {record.removed
            ? (
              <span class="secondary">
                <span class="mono">{record.kind}/{record.name}</span> (removed)
              </span>
            )
            : (
              <Link href={recordPath(project, record.kind, record.name)} class="mono">
                {record.kind}/{record.name}
              </Link>
            )}
        </span>
      ))}
      {leftOut > 0 && (
        <span class="tertiary">
          {` and ${leftOut} more record${leftOut === 1 ? "" : "s"}`}
        </span>
      )}
    </p>
  );
}
