import { Link } from "../common/link.tsx";
import { projectPath } from "../state/route.ts";

/** Props of {@linkcode RecordsEmpty}. */
export interface RecordsEmptyProps {
  /** The project folder, as the address gives it. */
  project: string;
}

/** What the Records area says while the project's memory holds no record, and what to do. */
export function RecordsEmpty(props: RecordsEmptyProps) {
  return (
    <div class="empty-detail">
      <div class="records-empty">
        <p class="primary">No records yet — records appear when an extension writes them.</p>
        <p class="secondary">
          Install an extension that keeps records, or run one of its handlers from its page; each
          record it writes shows here with the receipt of the call that wrote it.
        </p>
        <Link href={projectPath(props.project, "extensions")} class="button">
          Go to Extensions
        </Link>
      </div>
    </div>
  );
}
