import type { RecordKindsResponse, RecordSummary } from "../../runtime/web/api/records_types.ts";
import { useListKeys } from "../common/use_list_keys.ts";
import { navigate, projectPath } from "../state/route.ts";
import { RecordRow } from "./record_row.tsx";

/** Props of {@linkcode RecordList}. */
export interface RecordListProps {
  /** The project folder, as the address gives it. */
  project: string;
  /** The kinds the memory holds, counted; null until read. */
  kinds: RecordKindsResponse | null;
  /** The kind shown; null for every kind. */
  kind: string | null;
  /** The key of the record shown; null when none is. */
  selected: string | null;
  /** What the search box holds. */
  text: string;
  /** Told what the search box holds now. */
  onText: (text: string) => void;
  /** The records found so far, in key order; null until read. */
  records: RecordSummary[] | null;
  /** Records read for the pages so far. */
  scanned: number;
  /** More records are left to read. */
  more: boolean;
  /** Asked to read the next page. */
  onMore: () => void;
  /** Why the records could not be read; null when they could. */
  error: string | null;
}

/**
 * The Records area's list: a search box, the kind chosen, and the records
 * found, under their kind's heading when every kind is shown; a button reads
 * the next page, and says how many records a search has read so far. As in
 * the other lists, `/` focuses the search box (Escape empties it, then
 * leaves it) and arrow keys move among the rows (`useListKeys`).
 */
export function RecordList(props: RecordListProps) {
  const { kinds, records } = props;
  const total = kinds?.kinds.reduce((sum, k) => sum + k.count, 0) ?? 0;
  const counted = (count: number, more: boolean) => `${count}${more ? "+" : ""}`;
  const groups = groupByKind(records ?? []);
  const searching = props.text.trim() !== "";
  const none = kinds !== null && kinds.kinds.length === 0;
  const column = useListKeys<HTMLElement>({ rows: ".record-link" });
  return (
    <section class="list-column" aria-labelledby="records-title" ref={column}>
      <header class="column-header records-header">
        <h1 id="records-title" class="column-title">Records</h1>
        {!none && (
          <div class="records-filters">
            <label class="visually-hidden" for="records-search">Search records</label>
            <div class="list-filter">
              <input
                id="records-search"
                class="input records-search list-filter-input"
                type="search"
                placeholder="Search titles, names and fields"
                maxLength={200}
                aria-keyshortcuts="/"
                autocomplete="off"
                spellcheck={false}
                data-list-filter=""
                value={props.text}
                onInput={(event) => props.onText(event.currentTarget.value)}
                onKeyDown={(event) => {
                  if (event.key !== "Escape") return;
                  event.preventDefault();
                  if (props.text !== "") props.onText("");
                  else event.currentTarget.blur();
                }}
              />
              {props.text === "" && <kbd class="list-filter-key" aria-hidden="true">/</kbd>}
            </div>
            <label class="visually-hidden" for="records-kind">Kind</label>
            <select
              id="records-kind"
              class="input records-kind"
              value={props.kind ?? ""}
              onChange={(event) => {
                const chosen = event.currentTarget.value;
                navigate(projectPath(props.project, "records", chosen || undefined));
              }}
            >
              <option value="">
                Every kind{kinds ? ` (${counted(total, kinds.kinds.some((k) => k.more))})` : ""}
              </option>
              {props.kind && !kinds?.kinds.some((k) => k.kind === props.kind) && (
                <option value={props.kind}>{props.kind}</option>
              )}
              {kinds?.kinds.map((k) => (
                <option key={k.kind} value={k.kind}>{k.kind} ({counted(k.count, k.more)})</option>
              ))}
            </select>
          </div>
        )}
      </header>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {none && <p class="empty secondary">This project's memory holds no records.</p>}
      <p class="visually-hidden" role="status" aria-live="polite">
        {records === null
          ? ""
          : `${records.length} record${records.length === 1 ? "" : "s"}${
            props.more ? " so far" : ""
          }`}
      </p>
      {records !== null && records.length === 0 && !props.more && (kinds?.kinds.length ?? 0) > 0 &&
        (
          <p class="empty secondary">
            {searching
              ? `No record${props.kind ? ` of ${props.kind}` : ""} holds “${props.text.trim()}”.`
              : "No records of this kind."}
          </p>
        )}
      {groups.map(([kind, rows]) => (
        <section key={kind} class="record-group" aria-labelledby={`record-group-${slug(kind)}`}>
          <h2 id={`record-group-${slug(kind)}`} class="record-group-title">{kind}</h2>
          <ul class="record-rows" aria-labelledby={`record-group-${slug(kind)}`}>
            {rows.map((record) => (
              <RecordRow
                key={record.key}
                project={props.project}
                record={record}
                selected={record.key === props.selected}
              />
            ))}
          </ul>
        </section>
      ))}
      {props.more && (
        <div class="records-more">
          {searching && (
            <p class="tertiary">
              Searched {props.scanned} record{props.scanned === 1 ? "" : "s"} so far.
            </p>
          )}
          <button type="button" class="button" onClick={props.onMore}>
            {searching ? "Search further" : "Show more"}
          </button>
        </div>
      )}
    </section>
  );
}

/** The records under their kinds, in the order they came (key order keeps a kind together). */
function groupByKind(records: RecordSummary[]): [string, RecordSummary[]][] {
  const groups = new Map<string, RecordSummary[]>();
  for (const record of records) {
    const rows = groups.get(record.kind);
    if (rows) rows.push(record);
    else groups.set(record.kind, [record]);
  }
  return [...groups];
}

/** A kind as part of an element id. */
function slug(kind: string): string {
  return kind.replace(/[^a-zA-Z0-9-]+/g, "-");
}
