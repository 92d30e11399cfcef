/**
 * Joining a transcript's streamed chunks. An agent streams its reply as many
 * small chunks; the session hands on one entry per chunk, as it arrives, and
 * joining consecutive chunks into one entry is the store's job, with
 * {@linkcode appendEntry}, so that what is stored and what a live view shows
 * after folding are the same entries. The entries' shapes are in
 * `runtime/transcript.ts`.
 *
 * @module
 */
import type { MessageEntry, ThoughtEntry, TranscriptEntry, UserEntry } from "../transcript.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";

/** The entries whose text streams in chunks and is joined by {@linkcode appendEntry}. */
type ChunkEntry = UserEntry | MessageEntry | ThoughtEntry;

function isChunk(entry: TranscriptEntry): entry is ChunkEntry {
  return entry.kind === "user" || entry.kind === "message" || entry.kind === "thought";
}

function messageIdOf(entry: ChunkEntry): string | undefined {
  return entry.kind === "user" ? undefined : entry.messageId;
}

/**
 * Adds an entry to a transcript, joining it to the last entry when both are
 * chunks of the same stream: the same kind (`user`, `message`, `thought`),
 * the same `messageId` (or neither has one), both replayed or neither, and
 * the joined text within `maxChars`. Otherwise it is pushed as it is. The
 * joined entry keeps the first chunk's time.
 *
 * @param entries The transcript so far; changed in place.
 * @param entry The next entry.
 * @param maxChars The longest joined text; `AGENT_LIMITS.maxEntryChars` by default.
 */
export function appendEntry(
  entries: TranscriptEntry[],
  entry: TranscriptEntry,
  maxChars: number = AGENT_LIMITS.maxEntryChars,
): void {
  const last = entries.at(-1);
  if (
    last !== undefined && isChunk(last) && isChunk(entry) && last.kind === entry.kind &&
    messageIdOf(last) === messageIdOf(entry) && Boolean(last.replay) === Boolean(entry.replay) &&
    last.text.length + entry.text.length <= maxChars
  ) {
    entries[entries.length - 1] = { ...last, text: last.text + entry.text };
    return;
  }
  entries.push(entry);
}
