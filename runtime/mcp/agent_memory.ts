/**
 * The memory an agent reads through sync-mcp: the same listing, pages,
 * cursors and limits a handler's `memory.list / record / content` have (the
 * memory domain's transaction answers both), over the kinds the packages
 * serving the project publish. An agent writes no records.
 *
 * @module
 */
import { MemoryAccessError } from "../errors.ts";
import type { RecordPage, RecordQuery, RecordSummary } from "../extension_api/service.ts";
import { MemoryTransaction, parseRecordKey, type RecordCursors } from "../memory/mod.ts";

/** Options for {@linkcode AgentMemory}. */
export interface AgentMemoryOptions {
  /** The project's resolved folder: its cursors are bound to it. */
  project: string;
  /** The kinds the project's serving packages publish. */
  kinds: Iterable<string>;
  /** Seals listing cursors; the installation's, so a cursor outlives one connection. */
  cursors: RecordCursors;
}

/** One agent's read of one project's memory. */
export class AgentMemory {
  #memory: Deno.Kv;
  #project: string;
  #kinds: ReadonlySet<string>;
  #cursors: RecordCursors;

  /**
   * Reads `memory` as an agent may.
   *
   * @param memory The project's memory KV.
   * @param options The project, what it publishes, and the cursors' seal.
   */
  constructor(memory: Deno.Kv, options: AgentMemoryOptions) {
    this.#memory = memory;
    this.#project = options.project;
    this.#kinds = new Set(options.kinds);
    this.#cursors = options.cursors;
  }

  /**
   * A page of records the agent may read, as `memory.list` answers a handler.
   *
   * @param query Which records, how many, and from which cursor.
   * @throws {MemoryAccessError} when `query.kind` is not published.
   * @throws {InvalidInputError} for a malformed query or a cursor not issued for it.
   */
  async list(query: RecordQuery): Promise<RecordPage> {
    if (query.kind !== undefined) this.#assertReadable(query.kind);
    return await this.#read((t) => t.list(query, { readable: (kind) => this.#kinds.has(kind) }));
  }

  /**
   * A record's summary, or null when there is none.
   *
   * @param key A record key, `kind/name`.
   * @throws {MemoryAccessError} when the record's kind is not published.
   */
  async record(key: string): Promise<RecordSummary | null> {
    this.#assertReadable(parseRecordKey(key).kind);
    return await this.#read((t) => t.record(key));
  }

  /**
   * A record's content, or null when there is none.
   *
   * @param key A record key, `kind/name`.
   * @throws {MemoryAccessError} when the record's kind is not published.
   */
  async content(key: string): Promise<string | null> {
    this.#assertReadable(parseRecordKey(key).kind);
    return await this.#read((t) => t.content(key));
  }

  #assertReadable(kind: string): void {
    if (this.#kinds.has(kind)) return;
    const published = [...this.#kinds].sort();
    throw new MemoryAccessError(
      `An agent cannot read kind ${kind}: no package serving this project publishes it. ` +
        (published.length
          ? `Kinds it may read: ${published.join(", ")}`
          : "No package serving this project publishes a kind yet"),
    );
  }

  /** Reads through a transaction of its own, which writes nothing. */
  async #read<T>(read: (transaction: MemoryTransaction) => Promise<T>): Promise<T> {
    const transaction = new MemoryTransaction(this.#memory, {
      by: "agent",
      project: this.#project,
      cursors: this.#cursors,
    });
    try {
      return await read(transaction);
    } finally {
      transaction.discard();
    }
  }
}
