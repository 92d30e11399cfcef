// The parts of the extension API's account surface the Calendar applet uses, written out as the
// contract gives them, so the pure modules type-check and run in tests without the host. The
// service module hands the API's own `account` and `memory` to them; the shapes are the same.

/** A JSON value, as fields and step states are made of. */
export type Json = null | boolean | number | string | Json[] | { [name: string]: Json };

/** One entry of an account folder's listing. */
export interface AccountEntry {
  /** Relative to the account folder, `/`-separated. */
  path: string;
  kind: "file" | "folder";
  size: number;
  mtime: number | null;
}

/** One page of a listing; `cursor` is null on the last. */
export interface AccountListing {
  entries: AccountEntry[];
  cursor: string | null;
}

/** A mail address with its display name. */
export interface Address {
  name: string;
  address: string;
}

/** One occurrence of an event as the platform's parser expands it within a window. */
export interface ParsedEvent {
  uid: string;
  /** The occurrence's original start, for an occurrence of a recurring event; null otherwise. */
  recurrenceId: string | null;
  summary: string;
  description: string;
  location: string;
  /** ISO 8601 with offset. */
  start: string;
  end: string;
  allDay: boolean;
  timeZone: string | null;
  status: "confirmed" | "tentative" | "cancelled";
  organizer: Address | null;
  attendees: { name: string; address: string; partstat: string }[];
}

/** What the parser answers for one path: the value, or why it could not be read. */
export type Parsed<T> =
  & { path: string; size: number; mtime: number | null }
  & ({ ok: true; value: T } | { ok: false; reason: string });

/** The account calls the Calendar sync makes. */
export interface CalendarAccount {
  list(options?: { under?: string; cursor?: string; recursive?: boolean }): Promise<AccountListing>;
  parseCalendar(
    paths: string[],
    window: { from: string; days: number },
  ): Promise<Parsed<ParsedEvent[]>[]>;
}

/** A record as `memory.list` answers it, without content. */
export interface StoredRecord {
  key: string;
  title: string;
  fields: { [name: string]: Json };
  revision: number;
}

/** The memory calls the applets make. */
export interface RecordStore {
  list(query: { kind?: string; prefix?: string; limit?: number; cursor?: string }): Promise<
    { records: StoredRecord[]; cursor?: string }
  >;
  record(key: string): Promise<StoredRecord | null>;
  content(key: string): Promise<string | null>;
  write(
    input: { key: string; title?: string; fields?: { [name: string]: Json }; content?: string },
  ): Promise<unknown>;
  remove(key: string): Promise<unknown>;
}

/** How much of the source a step has read, as the task runner keeps it. */
export interface Coverage {
  read: number;
  of: number | null;
  failed: number;
  reasons?: { item: string; reason: string }[];
}
