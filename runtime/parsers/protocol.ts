/**
 * Messages between the parser pool and a parser process
 * (`workers/parser_worker.ts`), how they cross its stdin and stdout (frames:
 * a 4-byte big-endian length, then that many bytes of UTF-8 JSON), and what
 * a parse answers. The process imports this module and no other from the
 * runtime, so what it needs of the runtime is re-exported here.
 *
 * @module
 */
import type { ParsedEvent, ParsedMessage } from "../extension_api/service.ts";

export type { Address, ParsedEvent, ParsedMessage } from "../extension_api/service.ts";

/** HTML turned to text, re-exported for the worker. */
export { htmlToText } from "./html_to_text.ts";

/** What one file's parse answers: what was read, or why it could not be, in words. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The window a calendar's occurrences are expanded in. */
export interface CalendarWindow {
  /** ISO 8601: where the window starts. */
  from: string;
  /** How many days it lasts. */
  days: number;
}

/** The bounds a worker holds one parse to. */
export interface ParseBounds {
  /** Characters of a message's text answered. */
  maxTextChars: number;
  /** Attachments listed per message. */
  maxAttachments: number;
  /** Levels of MIME parts nested in parts. */
  maxMimeDepth: number;
  /** Addresses per list and Message-IDs of References kept. */
  maxAddresses: number;
  /** Encoded words one mail file may hold. */
  maxEncodedWords: number;
  /** Occurrences answered per calendar file. */
  maxOccurrences: number;
  /** Occurrences one recurring event is stepped through. */
  maxRecurrenceSteps: number;
  /** Characters of an event's summary, description or location. */
  maxEventTextChars: number;
  /** Attendees listed per event. */
  maxAttendees: number;
  /** Characters of any other text field. */
  maxFieldChars: number;
  /** Characters of JSON one calendar file's occurrences may come to. */
  maxResultChars: number;
}

/** Pool → worker: parse one mail file. */
export interface MailJob {
  /** Tells the message apart from a {@linkcode CalendarJob}. */
  type: "mail";
  /** The pool's number for the job; the answer carries it. */
  jobId: number;
  /** The file's bytes, in base64: JSON carries no bytes. */
  bytes: string;
  /** What the answer is held to. */
  bounds: ParseBounds;
}

/** Pool → worker: parse one calendar file and expand its occurrences in a window. */
export interface CalendarJob {
  /** Tells the message apart from a {@linkcode MailJob}. */
  type: "calendar";
  /** The pool's number for the job; the answer carries it. */
  jobId: number;
  /** The file's text. */
  text: string;
  /** Where occurrences are looked for. */
  window: CalendarWindow;
  /** What the answer is held to. */
  bounds: ParseBounds;
}

/**
 * Pool → process: read the file at `path` and answer its size. No parse
 * asks this: the pool's tests send it to see the process may read nothing.
 */
export interface ProbeJob {
  /** Tells the message apart from a {@linkcode MailJob}. */
  type: "probe";
  /** The pool's number for the job; the answer carries it. */
  jobId: number;
  /** The file to try. */
  path: string;
}

/** What the pool sends a worker. */
export type ToParserWorker = MailJob | CalendarJob | ProbeJob;

/** Worker → pool: one job's answer. */
export interface JobDone {
  /** Tells the message apart from {@linkcode WorkerReady}. */
  type: "done";
  /** The job's number. */
  jobId: number;
  /** What the parse answered. */
  result: ParseResult<ParsedMessage> | ParseResult<ParsedEvent[]> | ParseResult<number>;
}

/** Worker → pool: loaded, ready for jobs. */
export interface WorkerReady {
  /** Tells the message apart from {@linkcode JobDone}. */
  type: "ready";
}

/** What a worker sends the pool. */
export type FromParserWorker = JobDone | WorkerReady;

/** Bytes one frame may hold: a mail file of 25 MiB in base64, with room. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * Writes `message` as one frame: its length in 4 bytes, big-endian, then its JSON.
 *
 * @param to Where the frame goes: a process's stdin or stdout, as a writer.
 * @param message Anything JSON holds.
 */
export async function writeFrame(
  to: WritableStreamDefaultWriter<Uint8Array>,
  message: unknown,
): Promise<void> {
  const json = new TextEncoder().encode(JSON.stringify(message));
  const frame = new Uint8Array(4 + json.byteLength);
  new DataView(frame.buffer).setUint32(0, json.byteLength);
  frame.set(json, 4);
  await to.write(frame);
}

/**
 * The messages of a stream of frames, in order, until it ends.
 *
 * @param from A process's stdout or stdin.
 * @throws {RangeError} when a frame says it is longer than {@linkcode MAX_FRAME_BYTES}.
 */
export async function* readFrames(from: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  // Chunks are kept apart until a whole frame is in: joined once, not once a chunk.
  let chunks: Uint8Array[] = [];
  let held = 0;
  let length = -1;
  for await (const chunk of from) {
    chunks.push(chunk);
    held += chunk.byteLength;
    while (true) {
      if (length < 0) {
        if (held < 4) break;
        chunks = [join(chunks, held)];
        length = new DataView(chunks[0].buffer, chunks[0].byteOffset).getUint32(0);
        if (length > MAX_FRAME_BYTES) {
          throw new RangeError(`A frame of ${length} bytes is over the most, ${MAX_FRAME_BYTES}`);
        }
      }
      if (held < 4 + length) break;
      const all = join(chunks, held);
      yield JSON.parse(new TextDecoder().decode(all.subarray(4, 4 + length)));
      const rest = all.subarray(4 + length);
      chunks = [rest];
      held = rest.byteLength;
      length = -1;
    }
  }
}

/** The chunks as one array of `held` bytes. */
function join(chunks: Uint8Array[], held: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(held);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

/** The platform's base64 of bytes (V8 has had it since 14). */
interface Base64Bytes {
  toBase64(): string;
}

/**
 * `bytes` in base64.
 *
 * @param bytes Any bytes.
 */
export function toBase64(bytes: Uint8Array): string {
  return (bytes as unknown as Base64Bytes).toBase64();
}

/**
 * The bytes `text`, in base64, holds.
 *
 * @param text Base64.
 */
export function fromBase64(text: string): Uint8Array {
  return (Uint8Array as unknown as { fromBase64(text: string): Uint8Array }).fromBase64(text);
}
