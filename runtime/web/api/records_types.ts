/**
 * The shapes of the Records area's routes (`runtime/web/api/records.ts`), for
 * the browser app to import type-only. A record's title, fields and content
 * are a package's text, kept as written: show them as text, never as HTML.
 *
 * @module
 */
import type { RecordKindCount } from "../../memory/mod.ts";
import type { RecordSummary } from "../../extension_api/service.ts";
import type { Outcome, Receipt } from "../../types.ts";

export type { RecordKindCount, RecordSummary };

/** `GET /api/records/kinds?project=…`: the kinds the project's memory holds. */
export interface RecordKindsResponse {
  /** The project's resolved path. */
  project: string;
  /** The kinds, in key order, each with its count. */
  kinds: RecordKindCount[];
  /** More kinds follow than the list names. */
  more: boolean;
}

/** `GET /api/records?project=…[&kind=…][&q=…][&cursor=…][&limit=…]`: one page of records. */
export interface RecordListResponse {
  /** The project's resolved path. */
  project: string;
  /** The records found, in key order. */
  records: RecordSummary[];
  /** Where the next page starts; absent when every record was read. */
  cursor?: string;
  /** Records read for this page, found or not. */
  scanned: number;
}

/** The receipt of the call that wrote a revision, as the record's page shows it. */
export interface WriterReceipt {
  /** The receipt's id. */
  id: string;
  /** The handler called. */
  handler: string;
  /** Why it was called. */
  occasion: Receipt["occasion"];
  /** Who asked for the call, when the receipt says (a person's Run now, the CLI). */
  source?: Receipt["source"];
  /** How the call ended. */
  outcome: Outcome;
  /** When it started, as an ISO 8601 time. */
  startedAt: string;
}

/** Who wrote one revision of a record. */
export interface RecordWriterLine {
  /** The revision written. */
  revision: number;
  /** The writer: a package id, or `person`. */
  by: string;
  /** When, as an ISO 8601 time. */
  at: string;
  /** The id of the call's receipt; absent for a write outside a handler call. */
  receiptId?: string;
  /** That receipt, while the installation keeps it; null once dropped or when there is none. */
  receipt: WriterReceipt | null;
}

/** `GET /api/records/one?project=…&kind=…&name=…`: one record whole. */
export interface RecordResponse {
  /** The project's resolved path. */
  project: string;
  /** Its summary: key, kind, title, fields, revision, when and by whom. */
  record: RecordSummary;
  /** Its text body; `""` when it has none. */
  content: string;
  /** Who wrote its newest revisions, newest first. */
  writers: RecordWriterLine[];
}
