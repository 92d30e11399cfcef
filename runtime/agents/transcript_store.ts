/**
 * A session's transcript as the installation keeps it: one KV entry per
 * transcript entry, keyed by the entry's place in the whole transcript, a
 * streamed reply's chunks joined into one entry ({@linkcode appendEntry}).
 * It is bounded: past `SESSION_LIMITS.maxTranscriptEntries` entries or
 * `maxTranscriptBytes` bytes, the oldest are dropped, and the place of the
 * first one kept is the count of those omitted. So Chat shows the transcript
 * after a restart, even when the agent cannot load its own session.
 *
 * A {@linkcode TranscriptWriter} gathers the entries of a live session and
 * writes what changed now and then (`flushAfterMs`), and at once when asked:
 * a streamed reply is many chunks, and one write per chunk would be most of
 * the work.
 *
 * @module
 */
import type { TranscriptEntry } from "../transcript.ts";
import { SESSION_LIMITS, type SessionLimits } from "../limits.ts";
import { cutText } from "../internal/cut_text.ts";
import { appendEntry } from "./transcript.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";
import { transcriptEntryKey, transcriptPrefix } from "./keys.ts";

/** A stored transcript, as read. */
export interface StoredTranscript {
  /** The entries kept, oldest first. */
  entries: TranscriptEntry[];
  /** Entries dropped from the start past the bound. */
  omitted: number;
}

const encoder = new TextEncoder();

function bytesOf(entry: TranscriptEntry): number {
  return encoder.encode(JSON.stringify(entry)).byteLength;
}

/**
 * An entry that fits one KV value: its text (and lists) cut when its JSON
 * would be larger than `maxBytes`.
 */
function fitted(entry: TranscriptEntry, maxBytes: number): TranscriptEntry {
  if (bytesOf(entry) <= maxBytes) return entry;
  const cut = { ...entry } as TranscriptEntry & {
    text?: string;
    paths?: string[];
    options?: unknown[];
    steps?: unknown[];
  };
  // A character takes at most three bytes of UTF-8 in JSON, six when escaped.
  if (typeof cut.text === "string") cut.text = cutText(cut.text, Math.floor(maxBytes / 8));
  if (Array.isArray(cut.paths)) cut.paths = cut.paths.slice(0, 20);
  if (Array.isArray(cut.options)) cut.options = cut.options.slice(0, 20);
  if (Array.isArray(cut.steps)) cut.steps = cut.steps.slice(0, 20);
  if (bytesOf(cut) <= maxBytes) return cut;
  return {
    at: entry.at,
    kind: "failure",
    message: `An entry of kind ${entry.kind} was too large to keep`,
  };
}

/**
 * Reads a session's stored transcript.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param key The session's key.
 */
export async function readTranscript(
  kv: Deno.Kv,
  project: string,
  key: string,
): Promise<StoredTranscript> {
  const entries: TranscriptEntry[] = [];
  let omitted: number | null = null;
  for await (const entry of kv.list<TranscriptEntry>({ prefix: transcriptPrefix(project, key) })) {
    omitted ??= Number(entry.key.at(-1));
    entries.push(entry.value);
  }
  return { entries, omitted: omitted ?? 0 };
}

/** Options for a {@linkcode TranscriptWriter}. */
export interface TranscriptWriterOptions {
  /** The bounds; `SESSION_LIMITS` by default. */
  limits?: SessionLimits;
  /** Told when a write failed; the entries stay in memory and are written with the next. */
  onError?: (error: unknown) => void;
}

/** Gathers a live session's entries and writes them, joined and bounded. */
export class TranscriptWriter {
  #kv: Deno.Kv;
  #project: string;
  #key: string;
  #limits: SessionLimits;
  #onError: (error: unknown) => void;
  #entries: TranscriptEntry[] = [];
  #sizes: number[] = [];
  #bytes = 0;
  /** The place in the whole transcript of `#entries[0]`. */
  #first = 0;
  /** Places changed since the last write. */
  #dirty = new Set<number>();
  /** Places dropped since the last write. */
  #dropped: number[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();

  /**
   * A writer over a stored transcript (empty for a new session).
   *
   * @param kv The installation's KV.
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @param stored What is stored already.
   * @param options The bounds, and where failed writes are told.
   */
  constructor(
    kv: Deno.Kv,
    project: string,
    key: string,
    stored: StoredTranscript,
    options: TranscriptWriterOptions = {},
  ) {
    this.#kv = kv;
    this.#project = project;
    this.#key = key;
    this.#limits = options.limits ?? SESSION_LIMITS;
    this.#onError = options.onError ?? (() => {});
    this.#entries = [...stored.entries];
    this.#sizes = this.#entries.map(bytesOf);
    this.#bytes = this.#sizes.reduce((a, b) => a + b, 0);
    this.#first = stored.omitted;
  }

  /** The transcript as it stands, joined and bounded. */
  get transcript(): StoredTranscript {
    return { entries: [...this.#entries], omitted: this.#first };
  }

  /**
   * Adds an entry (joined to the last when both are chunks of one stream),
   * drops the oldest past the bounds, and writes soon.
   *
   * @param entry The entry, as the session gave it.
   * @returns The entry as it is kept, fitted to one stored value: what a live view is told.
   */
  add(entry: TranscriptEntry): TranscriptEntry {
    const before = this.#entries.length;
    const max = this.#limits.maxStoredEntryBytes;
    // Joined text stays within one stored value: a character is at most three bytes of UTF-8.
    const maxChars = Math.min(AGENT_LIMITS.maxEntryChars, Math.floor((max - 512) / 3));
    const kept = fitted(entry, max);
    appendEntry(this.#entries, kept, Math.max(40, maxChars));
    const last = this.#entries.length - 1;
    this.#entries[last] = fitted(this.#entries[last], max);
    const size = bytesOf(this.#entries[last]);
    if (this.#entries.length > before) this.#sizes.push(size);
    else {
      this.#bytes -= this.#sizes[last];
      this.#sizes[last] = size;
    }
    this.#bytes += size;
    this.#dirty.add(this.#first + last);
    while (
      this.#entries.length > 1 &&
      (this.#entries.length > this.#limits.maxTranscriptEntries ||
        this.#bytes > this.#limits.maxTranscriptBytes)
    ) {
      this.#entries.shift();
      this.#bytes -= this.#sizes.shift()!;
      this.#dirty.delete(this.#first);
      this.#dropped.push(this.#first);
      this.#first++;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch(() => {});
    }, this.#limits.flushAfterMs);
    return kept;
  }

  /** Writes what changed now; resolves once written (or once the failure was told). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  async #write(): Promise<void> {
    const dirty = [...this.#dirty].sort((a, b) => a - b);
    const dropped = this.#dropped;
    this.#dirty = new Set();
    this.#dropped = [];
    // In batches well inside what one atomic write of KV takes (800 KiB, 1,000 mutations).
    let batch = this.#kv.atomic();
    let size = 0;
    let count = 0;
    const commits: Promise<Deno.KvCommitResult | Deno.KvCommitError>[] = [];
    const send = () => {
      if (count > 0) commits.push(batch.commit());
      batch = this.#kv.atomic();
      size = 0;
      count = 0;
    };
    for (const place of dropped) {
      batch.delete(transcriptEntryKey(this.#project, this.#key, place));
      if (++count >= 500) send();
    }
    for (const place of dirty) {
      const at = place - this.#first;
      if (at < 0 || at >= this.#entries.length) continue;
      if (size + this.#sizes[at] > 600 * 1024 || count >= 500) send();
      batch.set(transcriptEntryKey(this.#project, this.#key, place), this.#entries[at]);
      size += this.#sizes[at];
      count++;
    }
    send();
    try {
      await Promise.all(commits);
    } catch (error) {
      for (const place of dirty) this.#dirty.add(place);
      this.#dropped.push(...dropped);
      this.#onError(error);
    }
  }
}
