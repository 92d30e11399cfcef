import type { RecordSummary } from "../../runtime/web/api/records_types.ts";
import { Link } from "../common/link.tsx";
import { RelativeTime } from "../common/relative_time.tsx";
import { recordPath } from "../state/route.ts";

/** Props of {@linkcode RecordRow}. */
export interface RecordRowProps {
  /** The project folder, as the address gives it. */
  project: string;
  /** The record. */
  record: RecordSummary;
  /** It is the one shown in the detail column. */
  selected: boolean;
}

/**
 * One record in the list: its title (or its name), its whole key (kind and
 * name, as `sync` and handlers name it: a bare name would say nothing),
 * revision and when it was written.
 */
export function RecordRow(props: RecordRowProps) {
  const { record } = props;
  const name = record.key.slice(record.kind.length + 1);
  return (
    <li class={`record-row ${props.selected ? "selected" : ""}`}>
      <Link
        href={recordPath(props.project, record.kind, name)}
        class="record-link"
        current={props.selected ? "page" : undefined}
      >
        <span class="primary record-row-title">{record.title || name}</span>
        <span class="tertiary record-row-facts">
          <span class="mono record-row-name">{record.key}</span>
          {` · revision ${record.revision}`}
          {" · "}
          <RelativeTime iso={record.updatedAt} />
        </span>
      </Link>
    </li>
  );
}
