// The extension API's shapes the Calendar applet's pure modules use, and the narrow views of
// `account` and `memory` they are handed, so they run in tests without the host.
import type {
  AccountEntry,
  AccountListing,
  Address,
  Coverage,
  JsonValue as Json,
  Parsed,
  ParsedEvent,
} from "@sync/extension-api/service";

export type { AccountEntry, AccountListing, Address, Coverage, Json, Parsed, ParsedEvent };

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
