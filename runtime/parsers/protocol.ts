/**
 * Messages between the parser pool and a parser worker
 * (`workers/parser_worker.ts`), and what a parse answers. Everything crosses
 * as structured-clone data. The worker imports this module and no other
 * from the runtime, so what it needs of the runtime is re-exported here.
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
  /** The file's bytes. */
  bytes: Uint8Array;
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

/** What the pool sends a worker. */
export type ToParserWorker = MailJob | CalendarJob;

/** Worker → pool: one job's answer. */
export interface JobDone {
  /** Tells the message apart from {@linkcode WorkerReady}. */
  type: "done";
  /** The job's number. */
  jobId: number;
  /** What the parse answered. */
  result: ParseResult<ParsedMessage> | ParseResult<ParsedEvent[]>;
}

/** Worker → pool: loaded, ready for jobs. */
export interface WorkerReady {
  /** Tells the message apart from {@linkcode JobDone}. */
  type: "ready";
}

/** What a worker sends the pool. */
export type FromParserWorker = JobDone | WorkerReady;
