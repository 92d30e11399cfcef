import { useEffect, useRef, useState } from "preact/hooks";
import type {
  RecordKindsResponse,
  RecordListResponse,
  RecordSummary,
} from "../../runtime/web/api/records_types.ts";
import type { StreamEvent } from "../../runtime/web/api/events_types.ts";
import { getJson, messageOf } from "../api/client.ts";
import type { ProjectState } from "../state/project_state.ts";
import { RecordDetail } from "./record_detail.tsx";
import { RecordList } from "./record_list.tsx";
import { RecordsEmpty } from "./records_empty.tsx";

/** Props of {@linkcode RecordsArea}. */
export interface RecordsAreaProps {
  /** The project's live state. */
  state: ProjectState;
  /** The kind the list shows; null for every kind. */
  kind: string | null;
  /** The name of the record shown (its key after `<kind>/`); null when none is. */
  name: string | null;
}

/** What the list shows: the pages read so far of one search. */
interface Listing {
  /** The records, in key order. */
  records: RecordSummary[];
  /** Where the next page starts; null when every record was read. */
  cursor: string | null;
  /** Records read for the pages so far. */
  scanned: number;
}

/**
 * The Records area: the project's records by kind, searched on the server a
 * page at a time, and the selected record whole. The kinds and the list are
 * read again when a receipt says a call wrote records.
 */
export function RecordsArea(props: RecordsAreaProps) {
  const { state } = props;
  // The kind the list shows: the address's, unless it names a record, whose
  // kind leaves the list as the person set it.
  const [kind, setKind] = useState<string | null>(props.name ? null : props.kind);
  useEffect(() => {
    if (props.name === null) setKind(props.kind);
  }, [props.kind, props.name]);
  const [kinds, setKinds] = useState<RecordKindsResponse | null>(null);
  const [text, setText] = useState("");
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [changed, setChanged] = useState(0);
  // Only the newest search's answer is shown.
  const asked = useRef(0);

  const readPage = async (cursor: string | null) => {
    const ask = ++asked.current;
    try {
      const page = await getJson<RecordListResponse>("/api/records", {
        project: state.project,
        kind: kind ?? undefined,
        q: text.trim() || undefined,
        cursor: cursor ?? undefined,
      });
      if (ask !== asked.current) return;
      setListing((before) => ({
        records: cursor && before ? [...before.records, ...page.records] : page.records,
        cursor: page.cursor ?? null,
        scanned: (cursor && before ? before.scanned : 0) + page.scanned,
      }));
      setError(null);
    } catch (thrown) {
      if (ask !== asked.current) return;
      setListing(null);
      setError(messageOf(thrown));
    }
  };

  useEffect(() => {
    getJson<RecordKindsResponse>("/api/records/kinds", { project: state.project })
      .then(setKinds, (thrown) => setError(messageOf(thrown)));
  }, [state, changed]);
  useEffect(() => {
    // A search waits for the typing to pause; a kind chosen reads at once.
    const wait = setTimeout(() => void readPage(null), text ? 200 : 0);
    return () => clearTimeout(wait);
  }, [state, kind, text, changed]);
  useEffect(() =>
    state.listen((event: StreamEvent) => {
      if (
        (event.type === "receipt" && (event.receipt.records?.length ?? 0) > 0) ||
        event.type === "resync"
      ) setChanged((n) => n + 1);
    }), [state]);

  const empty = kinds !== null && kinds.kinds.length === 0;
  return (
    <>
      <RecordList
        project={state.project}
        kinds={kinds}
        kind={kind}
        selected={props.kind && props.name ? `${props.kind}/${props.name}` : null}
        text={text}
        onText={setText}
        records={listing?.records ?? null}
        scanned={listing?.scanned ?? 0}
        more={listing?.cursor != null}
        onMore={() => void readPage(listing?.cursor ?? null)}
        error={error}
      />
      <main class="detail-column" aria-label="Record">
        {props.kind && props.name
          ? (
            <RecordDetail
              key={`${props.kind}/${props.name}`}
              project={state.project}
              kind={props.kind}
              name={props.name}
              changed={changed}
            />
          )
          : empty
          ? <RecordsEmpty project={state.project} />
          : (
            <div class="empty-detail">
              <p class="secondary">
                Choose a record to see its fields, its text, its revision and the calls that wrote
                it.
              </p>
            </div>
          )}
      </main>
    </>
  );
}
