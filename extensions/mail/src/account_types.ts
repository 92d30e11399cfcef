// The extension API's shapes the Mail applet's pure modules use, and the narrow views of
// `account` and `memory` they are handed, so they run in tests without the host.
import type {
  AccountEntry,
  AccountListing,
  Address,
  Coverage,
  JsonValue as Json,
  Parsed,
  ParsedMessage,
} from "@sync/extension-api/service";

export type { AccountEntry, AccountListing, Address, Coverage, Json, Parsed, ParsedMessage };

/** The account calls the Mail sync makes. */
export interface MailAccount {
  list(options?: { under?: string; cursor?: string; recursive?: boolean }): Promise<AccountListing>;
  parseMail(paths: string[]): Promise<Parsed<ParsedMessage>[]>;
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
