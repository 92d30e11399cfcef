/**
 * A project's records for the applets' pure modules, kept in a Map as memory keeps them: key
 * order, pages with a cursor, JSON crossing both ways, revisions. It counts what a call's
 * changes take of one commit as the host does — stored entries (a record's metadata, each 60 KiB
 * of its content set, and its old content's chunks deleted) and bytes — and refuses past 1,000
 * entries or 700 KiB, as a handler call is refused.
 *
 * @module
 */

import type { Json, RecordStore, StoredRecord } from "../../extensions/mail/src/account_types.ts";

/** One stored record. */
export interface MemoryRecord {
  key: string;
  title: string;
  fields: { [name: string]: Json };
  content: string;
  revision: number;
}

/** A record store that counts the changes of the current call. */
export class TestRecordStore implements RecordStore {
  /** The records, by key. */
  readonly records = new Map<string, MemoryRecord>();
  /** Keys written or removed since {@link beginCall}. */
  changed = new Set<string>();
  /** Stored entries and bytes the current call's changes take. */
  #taken = { entries: 0, bytes: 0 };
  /** Writes in all, since the store was made. */
  writes = 0;

  /** Starts counting a new handler call's changes. */
  beginCall(): void {
    this.changed = new Set();
    this.#taken = { entries: 0, bytes: 0 };
  }

  #change(key: string, next: MemoryRecord | null): void {
    this.changed.add(key);
    const old = this.records.get(key);
    const chunks = (text: string) => Math.ceil(utf8(text) / (60 * 1024));
    this.#taken.entries += 1 + (next ? chunks(next.content) : 0) + (old ? chunks(old.content) : 0);
    this.#taken.bytes += key.length +
      (next ? utf8(next.content) + utf8(JSON.stringify(next.fields)) + utf8(next.title) : 0);
    if (this.#taken.entries > 1000 || this.#taken.bytes > 700 * 1024) {
      throw new Error(
        `a call's changes may take at most 1,000 stored entries and 700 KiB; this one took ` +
          `${this.#taken.entries} entries and ${this.#taken.bytes} bytes with ${key}`,
      );
    }
  }

  list(
    query: { kind?: string; prefix?: string; limit?: number; cursor?: string },
  ): Promise<{ records: StoredRecord[]; cursor?: string }> {
    const keys = [...this.records.keys()].sort().filter((key) =>
      (!query.kind || key.startsWith(`${query.kind}/`)) &&
      (!query.prefix || key.startsWith(query.prefix)) && (!query.cursor || key > query.cursor)
    );
    const page = keys.slice(0, query.limit ?? 50);
    const records = page.map((key) => this.#summary(this.records.get(key)!));
    return Promise.resolve(
      page.length < keys.length ? { records, cursor: page[page.length - 1] } : { records },
    );
  }

  record(key: string): Promise<StoredRecord | null> {
    const record = this.records.get(key);
    return Promise.resolve(record ? this.#summary(record) : null);
  }

  content(key: string): Promise<string | null> {
    return Promise.resolve(this.records.get(key)?.content ?? null);
  }

  write(
    input: { key: string; title?: string; fields?: { [name: string]: Json }; content?: string },
  ): Promise<{ key: string; revision: number }> {
    const old = this.records.get(input.key);
    const record: MemoryRecord = {
      key: input.key,
      title: input.title ?? old?.title ?? "",
      fields: JSON.parse(JSON.stringify(input.fields ?? old?.fields ?? {})),
      content: input.content ?? old?.content ?? "",
      revision: (old?.revision ?? 0) + 1,
    };
    if (new TextEncoder().encode(JSON.stringify(record.fields)).length > 32 * 1024) {
      throw new Error(`${input.key}: fields past 32 KiB`);
    }
    if (new TextEncoder().encode(record.content).length > 512 * 1024) {
      throw new Error(`${input.key}: content past 512 KiB`);
    }
    this.#change(input.key, record);
    this.writes++;
    this.records.set(input.key, record);
    return Promise.resolve({ key: input.key, revision: record.revision });
  }

  remove(key: string): Promise<{ key: string; removed: boolean }> {
    this.#change(key, null);
    return Promise.resolve({ key, removed: this.records.delete(key) });
  }

  /** The records of `kind`, in key order. */
  ofKind(kind: string): MemoryRecord[] {
    return [...this.records.values()].filter((r) => r.key.startsWith(`${kind}/`))
      .sort((a, b) => a.key < b.key ? -1 : 1);
  }

  #summary(record: MemoryRecord): StoredRecord {
    return {
      key: record.key,
      title: record.title,
      fields: JSON.parse(JSON.stringify(record.fields)),
      revision: record.revision,
    };
  }
}

function utf8(text: string): number {
  return new TextEncoder().encode(text).length;
}
