import { useEffect, useState } from "preact/hooks";
import type { RecordResponse } from "../../runtime/web/api/records_types.ts";
import { getJson, messageOf } from "../api/client.ts";
import { RelativeTime } from "../common/relative_time.tsx";
import { RecordFields } from "./record_fields.tsx";
import { RecordWriters } from "./record_writers.tsx";

/** Props of {@linkcode RecordDetail}. */
export interface RecordDetailProps {
  /** The project folder, as the address gives it. */
  project: string;
  /** The record's kind. */
  kind: string;
  /** The record's name: its key after `<kind>/`. */
  name: string;
  /** Moves when a call wrote records, so the record is read again. */
  changed: number;
}

/**
 * One record whole: its title and key, revision and last writer, its fields,
 * its text, and the calls that wrote its newest revisions. Everything a
 * package wrote is shown as text.
 */
export function RecordDetail(props: RecordDetailProps) {
  const [view, setView] = useState<RecordResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<RecordResponse>("/api/records/one", {
      project: props.project,
      kind: props.kind,
      name: props.name,
    }).then((answer) => {
      setView(answer);
      setError(null);
    }, (thrown) => setError(messageOf(thrown)));
  }, [props.project, props.kind, props.name, props.changed]);
  if (error) {
    return (
      <div class="empty-detail">
        <p class="error" role="alert">{error}</p>
      </div>
    );
  }
  if (view === null) return <p class="secondary record-loading">Reading the record…</p>;
  const { record } = view;
  return (
    <article class="record-detail" aria-labelledby="record-title">
      <header class="record-header">
        <h2 id="record-title" class="record-title">{record.title || props.name}</h2>
        <p class="mono secondary record-key">{record.key}</p>
        <p class="tertiary record-facts">
          Revision {record.revision} · written by{" "}
          {record.updatedBy === "person" ? "a person" : record.updatedBy}{" "}
          <RelativeTime iso={record.updatedAt} />
        </p>
      </header>
      <section class="page-section" aria-labelledby="record-fields-title">
        <h3 id="record-fields-title" class="section-title">Fields</h3>
        <RecordFields fields={record.fields} />
      </section>
      <section class="page-section" aria-labelledby="record-content-title">
        <h3 id="record-content-title" class="section-title">Text</h3>
        {view.content === ""
          ? <p class="secondary">No text.</p>
          : (
            <pre class="record-content" tabIndex={0} aria-labelledby="record-content-title">
              {view.content}
            </pre>
          )}
      </section>
      <RecordWriters project={props.project} writers={view.writers} />
    </article>
  );
}
