/**
 * `@sync/extension-api/service`: the surface a package's service module
 * imports. Everything a handler may reach is here, and nothing else is there.
 *
 * ```ts
 * import { type Handlers, memory } from "@sync/extension-api/service";
 *
 * export default function register(): Handlers {
 *   return {
 *     "issues.count": async () => {
 *       const { records } = await memory.list({ kind: "issues.issue", limit: 500 });
 *       return { count: records.length };
 *     },
 *   };
 * }
 * ```
 *
 * This file is the typed declaration authors compile against. Inside Sync the
 * isolate's module loader serves the real module under the same specifier, and
 * `deno task build` leaves the import to it, so the functions exported here
 * never run: called anywhere else they reject and say so.
 *
 * Rules that hold for every function:
 * - Everything returns a promise; host calls cross to the host and back.
 * - Arguments and answers cross as plain JSON. A property set to `undefined`
 *   is left out, as `JSON.stringify` leaves it (`{ kind, cursor: undefined }`
 *   reaches the host as `{ kind }`), and an `undefined` in an array crosses
 *   as `null`. A function, a cycle, a `BigInt`, a `Map` or a class instance
 *   inside an argument is refused with its path (`TypeError: memory.write()
 *   argument: value.fields.seen is a Map, not plain JSON data`).
 * - A refusal rejects with an `Error` whose `name` says why
 *   (`MemoryAccessError`, `PermissionDeniedError`, `InvalidInputError`,
 *   `PayloadTooLargeError`, `ConflictError`, `NotFoundError`,
 *   `RateLimitedError`) and whose `message` says what to do. A handler may
 *   catch it; one that escapes fails the call.
 * - A call is a transaction: writes and work orders are staged (the call
 *   reads its own writes) and committed together when the handler returns,
 *   and not at all when it throws, times out or is superseded.
 *
 * The limits every call runs under, and the sizes every value may have, are
 * in `docs/limits.md`.
 *
 * This module type-checks with the ECMAScript library alone (no DOM, no Deno),
 * the same globals a handler has.
 *
 * @module
 */

/**
 * The version of this surface, [semver](https://semver.org). A minor version
 * adds; a major version changes or removes.
 */
export const API_VERSION = "2.1.0";

// ---------------------------------------------------------------------------
// Values that cross.

/** A JSON value: what `fields`, payloads and answers are made of. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [name: string]: JsonValue };

/** A record without its content: what `memory.list` and `memory.record` answer. */
export interface RecordSummary {
  /** `kind/name`, unique in the project, such as `issues.issue/142`. */
  key: string;
  /** The part of the key before the first `/`, such as `issues.issue`. */
  kind: string;
  /** One line shown in lists; `""` when never set. */
  title: string;
  /** Structured values; `{}` when never set. */
  fields: { [name: string]: JsonValue };
  /** 1 when created; one more with every write. */
  revision: number;
  /** ISO 8601 time of the last write. */
  updatedAt: string;
  /** Who wrote last: a package id, or `person`. */
  updatedBy: string;
}

/**
 * What `memory.write` takes. Omitted values keep the record's current ones
 * (for a new record: title `""`, fields `{}`, content `""`). No other field is
 * accepted: a misspelt `body` is refused rather than dropped.
 */
export interface RecordInput {
  /** `kind/name`; the kind must start with the package's id and a dot (`issues.`). */
  key: string;
  /** One line shown in lists. */
  title?: string;
  /** A JSON object. */
  fields?: { [name: string]: JsonValue };
  /** The text body. */
  content?: string;
  /**
   * The revision the write is based on: it must equal the record's current
   * revision, `0` meaning "the record must not exist yet". Omitted: write
   * whatever is there.
   */
  revision?: number;
}

/** What `memory.list` takes. `kind` and `prefix` narrow together when both are given. */
export interface RecordQuery {
  /** Exactly this kind (keys `kind/…`), such as `issues.issue`. */
  kind?: string;
  /** Keys starting with this text. */
  prefix?: string;
  /** Records per page; default 50 (the most a page holds is in `docs/limits.md`). */
  limit?: number;
  /**
   * The `cursor` of the previous page, unchanged; this page starts strictly
   * after it. It is good only for the same `kind` and `prefix`, and only for
   * the package it was given to; any other is refused.
   */
  cursor?: string;
}

/** One page of a listing, in key order. `cursor` is present when more records follow. */
export interface RecordPage {
  /** The page's records, without their content. */
  records: RecordSummary[];
  /**
   * Pass as `cursor` to list the next page of the same query; absent on the
   * last one. Opaque: it says nothing a handler can read, and may be kept to
   * continue in a later call.
   */
  cursor?: string;
}

/** What `memory.write` answers: the key and the revision the record will have once committed. */
export interface WriteResult {
  /** The record written. */
  key: string;
  /** Its revision once the call commits. */
  revision: number;
}

/** What `memory.remove` answers. `removed` is false when there was no such record. */
export interface RemoveResult {
  /** The record named. */
  key: string;
  /** Whether there was a record to remove. */
  removed: boolean;
}

/**
 * An order for work: today one kind, an agent session. The host writes the
 * order down when the call commits and raises the agent on its own time; the
 * handler is long gone by then.
 */
export interface WorkOrderInput {
  /** The kind of work; today only `agent.session`. */
  kind: "agent.session";
  /** The agent to raise, such as `demo` or `claude-code`. */
  agent: string;
  /** What Chat shows for the session. Required, so a row says which. */
  title: string;
  /** What the agent is first told. */
  prompt: {
    /** What the agent is asked. */
    text: string;
    /** Absolute paths the agent reads itself. */
    attachments?: string[];
  };
  /**
   * What should happen if the session is interrupted: `continue` (the work
   * should finish without anybody) or `wait` (a person picks it up). Required:
   * the source decides, nothing guesses.
   */
  onInterrupted: "continue" | "wait";
  /** What the work is about, as a record key where there is one. */
  about?: string;
}

/** What `work.order` answers: the key of the order (not of a conversation; there is none yet). */
export interface WorkOrdered {
  /** Names the order for `work.state`. */
  key: string;
}

/** What `work.state` answers. */
export interface WorkState {
  /** The key `work.order` answered. */
  key: string;
  /**
   * `ordered` once written down; then, as the host performs it: `running`,
   * `waiting` (for a person: a permission, or a sign-in to the agent),
   * `ended` (the turn ended), `failed`, or `interrupted` (Sync stopped while
   * it ran; only a person continues it).
   */
  state: "ordered" | "running" | "waiting" | "ended" | "failed" | "interrupted";
  /** The title the order gave. */
  title: string;
  /** ISO 8601 time the order was made. */
  orderedAt: string;
  /**
   * Why it is `failed` (or `interrupted`), in the host's words: the
   * agent's cause and what to do, at most 1,000 characters. Absent otherwise.
   */
  reason?: string;
}

/** What `net.fetch` takes. */
export interface NetRequest {
  /** An `http:` or `https:` URL whose host the package declares as `net:<host>`. */
  url: string;
  /** `GET` (default), `HEAD`, `POST`, `PUT`, `PATCH` or `DELETE`. */
  method?: string;
  /** Request headers, by name. */
  headers?: { [name: string]: string };
  /** The request body as text (send JSON with `JSON.stringify`). */
  body?: string;
}

/** What `net.fetch` answers. The body is text: parse JSON with `JSON.parse`. */
export interface NetResponse {
  /** The HTTP status, such as 200; a redirect is answered as its 3xx. */
  status: number;
  /** Header names in lowercase. */
  headers: { [name: string]: string };
  /** The response body as text. */
  body: string;
}

/** A file or folder of the device's account folder, as `account.list` answers it. */
export interface AccountEntry {
  /** Relative to the account folder, `/`-separated, such as `.Sent/cur/1700000000.M1P2.host:2,S`. */
  path: string;
  /** What it is; a link is followed and listed as what it leads to. */
  kind: "file" | "folder";
  /** Bytes; 0 for a folder. */
  size: number;
  /** When it last changed, in ms since the epoch; null where the system does not say. */
  mtime: number | null;
}

/** One page of `account.list`. */
export interface AccountListing {
  /** The entries of the page, in path order. */
  entries: AccountEntry[];
  /** Hand it back as `cursor` for the next page; null on the last page. */
  cursor: string | null;
}

/** A mail address with its display name. */
export interface Address {
  /** The display name, decoded; `""` when the header names none. */
  name: string;
  /** The address, such as `ada@example.org`. */
  address: string;
}

/** A mail message as `account.parseMail` reads it. */
export interface ParsedMessage {
  /** The Message-ID with its angle brackets; null when there is none. */
  messageId: string | null;
  /** The In-Reply-To header; null when there is none. */
  inReplyTo: string | null;
  /** The Message-IDs of the References header, oldest first. */
  references: string[];
  /** The subject, decoded; `""` when there is none. */
  subject: string;
  /** The sender; null when the header is missing or unreadable. */
  from: Address | null;
  /** The To addresses (groups flattened). */
  to: Address[];
  /** The Cc addresses (groups flattened). */
  cc: Address[];
  /** The Date header as ISO 8601 (UTC); null when missing or unreadable. */
  date: string | null;
  /** The text: the plain part, or the HTML part turned to text; at most 20,000 characters. */
  text: string;
  /** The text was longer and is cut to 20,000 characters. */
  textCut: boolean;
  /** The attachments, listed: their content is never answered. */
  attachments: { filename: string | null; mimeType: string; size: number }[];
}

/**
 * One occurrence of a calendar event within the window asked for. Times are
 * ISO 8601: a zoned or UTC time with its offset (`2027-03-16T11:00:00+01:00`,
 * `…Z`), a floating time without one (`2027-03-20T09:00:00`), an all-day
 * date as a date (`2027-03-17`).
 */
export interface ParsedEvent {
  /** The event's UID. */
  uid: string;
  /** The original start of this occurrence of a recurring event; null for a single event. */
  recurrenceId: string | null;
  /** The summary; `""` when there is none. */
  summary: string;
  /** The description; `""` when there is none. */
  description: string;
  /** The location; `""` when there is none. */
  location: string;
  /** When it starts. */
  start: string;
  /** When it ends. */
  end: string;
  /** An all-day event: `start` and `end` are dates, the end not included. */
  allDay: boolean;
  /** The TZID its start is written in; null for UTC, floating and all-day times. */
  timeZone: string | null;
  /** Its STATUS (`confirmed` when it has none); a cancelled occurrence is listed as such. */
  status: "confirmed" | "tentative" | "cancelled";
  /** The organizer; null when there is none. */
  organizer: Address | null;
  /** Each attendee with their answer (PARTSTAT, such as `ACCEPTED`, `NEEDS-ACTION`). */
  attendees: { name: string; address: string; partstat: string }[];
}

/**
 * What `account.parseMail` and `account.parseCalendar` answer per path: the
 * file's size and mtime, and either what was read or why it could not be.
 */
export type Parsed<T> =
  & {
    /** The path asked for. */
    path: string;
    /** Bytes of the file; 0 when it could not be read. */
    size: number;
    /** When it last changed, in ms; null when it could not be read. */
    mtime: number | null;
  }
  & ({ ok: true; value: T } | { ok: false; reason: string });

// ---------------------------------------------------------------------------
// Occasions and handlers.

/** Why a handler was called. */
export type OccasionKind = "clock" | "extension" | "agent" | "lifecycle" | "task";

/** A lifecycle moment: after install, before removal, when the project is opened. */
export type LifecycleMoment = "installed" | "removed" | "opened";

/**
 * The occasion a handler is told about, its second argument: `clock` (its
 * schedule row came due), `extension` (a person or another extension called
 * it), `agent` (an agent called its tool), `lifecycle` (with `moment`),
 * `task` (a step of its device's task, with `task`).
 */
export interface Occasion {
  /** Why the handler was called. */
  kind: OccasionKind;
  /** For `lifecycle` only. */
  moment?: LifecycleMoment;
  /** For `task` only: which of the device's tasks, and which step of which attempt. */
  task?: TaskOccasion;
}

/**
 * The step of a device's task a handler is called for (`occasion.task`). An
 * attempt is one run of the task; it takes one step, and one more each time a
 * step answers `continue` ({@linkcode TaskStepAnswer}).
 */
export interface TaskOccasion {
  /** The task the manifest's `device.tasks` declares. */
  name: "sync" | "analyze";
  /** The attempt's id, the same for each of its steps. */
  attempt: string;
  /** The step within the attempt, from 1. */
  step: number;
  /**
   * What began the attempt: `schedule`, `observation`, `person`, `agent`,
   * `retry`, or `fresh` (the account was just connected or reset).
   */
  trigger: string;
}

/**
 * How much of the device's source a task step read: `read` items of `of`
 * (`null` while the whole is unknown), `failed` of them unread, and why each
 * failed, when told. Unknown stays unknown: a step that cannot count the
 * whole says `of: null` rather than guessing.
 */
export interface Coverage {
  /** Items read, such as messages or events. */
  read: number;
  /** Items there are to read; `null` when unknown. */
  of: number | null;
  /** Items that could not be read. */
  failed: number;
  /** Why items failed, by item (a path or an id), when the step tells. */
  reasons?: { item: string; reason: string }[];
  /**
   * What the items are called, one and many, as a person reads them:
   * `{ one: "message", other: "messages" }` says "Read 1,204 of 1,210
   * messages". "item" and "items" when absent; letters and spaces only, at
   * most 40 characters each, or it is left out.
   */
  items?: { one: string; other: string };
}

/**
 * What a task handler answers for one step. With `continue`, the runner calls
 * it again in the same attempt with the payload `{ continue: <that value> }`
 * (at most 64 KiB of JSON), so long work is done in bounded steps, each
 * committed on its own; without it, the attempt is done. `coverage` says how
 * much of the source this step read.
 *
 * ```ts
 * "mail.sync": async (payload: { continue?: { cursor: string } }) => {
 *   const page = await readSome(payload?.continue?.cursor);
 *   return page.next ? { continue: { cursor: page.next } } : { coverage: page.coverage };
 * },
 * ```
 */
export interface TaskStepAnswer {
  /** Present to be called again in the same attempt, with this value as `payload.continue`. */
  continue?: JsonValue;
  /** How much of the source this step read. */
  coverage?: Coverage;
}

/**
 * One handler. Called with the payload (`null` when none was given) and the
 * occasion; returns a JSON answer, or nothing (answered as `null`), or a
 * promise of either, which is settled before the answer is taken.
 *
 * The payload arrives as parsed JSON; annotate it with the shape you expect
 * (`async (payload: { name?: string }) => …`) and check it, since any caller
 * may send anything.
 */
export type Handler = {
  // A method signature (checked bivariantly), so a handler may annotate its
  // payload with the shape it expects; unannotated, the payload is `unknown`.
  bivariant(payload: unknown, occasion: Occasion): unknown;
}["bivariant"];

/**
 * What `register()` returns: every handler, by the name the manifest declares
 * it under (`issues.poll`). Every key must be declared under `handlers` in
 * `manifest.json`, and every declared handler must be returned.
 */
export type Handlers = { [name: string]: Handler };

// ---------------------------------------------------------------------------
// The functions.

/** Project memory, as this package may see it. */
export interface MemoryApi {
  /**
   * Lists records in key order, without their content, 50 a page by default.
   * Records of kinds the package may not read are left out before the page is
   * counted, so a page holds `limit` records whenever that many follow; asking
   * for such a `kind` by name is refused.
   *
   * @param query A `kind` or key `prefix`, a `limit`, and the `cursor` of the page before.
   * @throws `MemoryAccessError` when `query.kind` is neither the package's own
   *   nor published by an installed package.
   * @throws `InvalidInputError` for a malformed kind or limit, or a cursor that
   *   was not issued for this query to this package.
   */
  list(query?: RecordQuery): Promise<RecordPage>;
  /**
   * One record without its content, or `null` when there is none.
   *
   * @param key `kind/name`, such as `issues.issue/142`.
   * @throws `MemoryAccessError` when the kind may not be read.
   * @throws `InvalidInputError` for a malformed key.
   */
  record(key: string): Promise<RecordSummary | null>;
  /**
   * A record's text content, or `null` when there is no such record.
   *
   * @param key `kind/name`, such as `issues.issue/142`.
   * @throws `MemoryAccessError` when the kind may not be read.
   * @throws `InvalidInputError` for a malformed key.
   */
  content(key: string): Promise<string | null>;
  /**
   * Writes a record, creating it or changing the values given. Staged until
   * the handler returns; this call's later reads see it.
   *
   * @param input The `key`, and the `title`, `fields`, `content` and expected `revision` to write.
   * @throws `MemoryAccessError` when the kind is not under the package's own
   *   prefix (`<id>.`).
   * @throws `ConflictError` when `revision` is given and is not the current one.
   * @throws `InvalidInputError` for a malformed key, an unknown field or a wrong type.
   * @throws `PayloadTooLargeError` past a record's or a call's limits.
   */
  write(input: RecordInput): Promise<WriteResult>;
  /**
   * Removes a record. Staged like a write.
   *
   * @param key `kind/name`, such as `issues.issue/142`.
   * @throws `MemoryAccessError` when the kind is not under the package's own prefix.
   * @throws `InvalidInputError` for a malformed key.
   */
  remove(key: string): Promise<RemoveResult>;
}

/** Work the host performs on the package's behalf, outliving the call. Needs `work.agent`. */
export interface WorkApi {
  /**
   * Orders work and answers its key at once. The order is written down when
   * the call commits, with this handler as its source; raising the agent is
   * the host's.
   *
   * @param order What to do: `kind`, `agent`, `title`, `prompt`, `onInterrupted`, and optionally `about`.
   * @throws `PermissionDeniedError` when the package does not declare the
   *   `work.agent` permission (checked when called).
   * @throws `InvalidInputError` naming each wrong field of the order.
   */
  order(order: WorkOrderInput): Promise<WorkOrdered>;
  /**
   * The state of work this package ordered in this project.
   *
   * @param key A key `work.order` answered.
   * @throws `PermissionDeniedError` without `work.agent`.
   * @throws `NotFoundError` when this package ordered no such work here.
   */
  state(key: string): Promise<WorkState>;
}

/** The network, through the host, to declared hosts only. */
export interface NetApi {
  /**
   * Performs a request from the host and answers its status, headers and
   * body as text. Redirects are not followed: a redirect comes back as its
   * 3xx response. Limited in time and size (see `docs/limits.md`).
   *
   * @param request `{ url, method?, headers?, body? }`, or a URL string for a GET.
   * @throws `PermissionDeniedError` when the URL's host (with its port, if not
   *   the scheme's default) is not declared as `net:<host>`.
   * @throws `InvalidInputError` for a malformed request, or when the host did
   *   not answer in time or could not be reached.
   * @throws `PayloadTooLargeError` when the response body passes the cap.
   */
  fetch(request: NetRequest | string): Promise<NetResponse>;
}

/**
 * The device's account, in a task step of an applet (`account.folder` or
 * `account.remote`). Outside a task step every function is refused.
 * Refusals a task reacts to, by `error.name`: `TransientError` (a busy file,
 * a timeout, a network error, 5xx or 429: the run is tried again),
 * `AccountAccessError` (the folder is gone or unreadable, or a path leads
 * outside it), `SignInError` (the remote answered 401 or 403),
 * `UnknownOutcomeError` (a request other than GET or HEAD got no answer: it
 * may or may not have been done).
 */
export interface AccountApi {
  /**
   * Lists the account folder (or the folder `under` in it), a page at a time,
   * in path order. With `recursive`, subfolders are walked too (a Maildir's
   * `.Sent/cur`). Needs `account.folder`.
   *
   * @param options `under` (a folder, relative), the `cursor` of the page before, `recursive`.
   * @throws `AccountAccessError` when the folder is gone or unreadable, or `under` leads outside it.
   * @throws `InvalidInputError` for a malformed path or cursor.
   */
  list(options?: { under?: string; cursor?: string; recursive?: boolean }): Promise<AccountListing>;
  /**
   * A file of the account folder as UTF-8 text, bounded (`docs/limits.md`). Needs `account.folder`.
   *
   * @param path Relative to the account folder, `/`-separated.
   * @throws `AccountAccessError` when it leads outside the folder or cannot be read.
   * @throws `NotFoundError` when there is no such file.
   * @throws `PayloadTooLargeError` past the limit.
   * @throws `TransientError` when the file is busy.
   */
  read(path: string): Promise<string>;
  /**
   * Reads mail files (one RFC 5322 message each) of the account folder, at
   * most 32 a call. A file that cannot be read or parsed is answered
   * `{ ok: false, reason }` in its place. Needs `account.folder`.
   *
   * @param paths Relative to the account folder.
   * @throws `AccountAccessError` when a path leads outside the folder, or the folder is gone.
   */
  parseMail(paths: string[]): Promise<Parsed<ParsedMessage>[]>;
  /**
   * Reads iCalendar files of the account folder, at most 32 a call, and
   * answers each one's occurrences that overlap the window, recurrences
   * expanded (time zones from the file's VTIMEZONEs, EXDATE and RECURRENCE-ID
   * exceptions applied). Needs `account.folder`.
   *
   * @param paths Relative to the account folder.
   * @param window `from` (ISO 8601) and how many `days` after it.
   * @throws `AccountAccessError` when a path leads outside the folder, or the folder is gone.
   */
  parseCalendar(
    paths: string[],
    window: { from: string; days: number },
  ): Promise<Parsed<ParsedEvent[]>[]>;
  /**
   * A request to the account's origin; the host adds the credential, which
   * the handler never sees. Limited as `net.fetch`. Needs `account.remote`.
   *
   * @param request A path (`/api/items`) or URL on the origin, or `{ url, method?, headers?, body? }`.
   * @throws `PermissionDeniedError` for a URL on another origin.
   * @throws `SignInError` when the origin answers 401 or 403.
   * @throws `TransientError` for a GET or HEAD with no answer, or answered 5xx or 429.
   * @throws `UnknownOutcomeError` for another method that got no answer.
   */
  fetch(request: NetRequest | string): Promise<NetResponse>;
}

/**
 * Lines for the host's log, prefixed with the package id. Arguments are
 * joined with spaces; non-strings are written as JSON. Lines past the
 * per-call allowance are dropped, with one notice. The isolate's global
 * `console` is this same object.
 */
export interface ConsoleApi {
  /** A plain line. */
  log(...args: unknown[]): void;
  /** A line marked `info`. */
  info(...args: unknown[]): void;
  /** A line marked `warn`. */
  warn(...args: unknown[]): void;
  /** A line marked `error`. */
  error(...args: unknown[]): void;
  /** A line marked `debug`. */
  debug(...args: unknown[]): void;
}

function outside(name: string): Promise<never> {
  return Promise.reject(
    new Error(
      `${name}() runs only inside Sync's isolate, where the host serves ` +
        `@sync/extension-api/service; build the package (deno task build) and call the handler ` +
        `through Sync (sync call <id> <handler> --project <dir>)`,
    ),
  );
}

/**
 * Read the project's records — the package's own kinds and the kinds other
 * installed packages publish — and write under the package's own prefix.
 *
 * @example
 * ```ts
 * const { records } = await memory.list({ kind: "issues.issue", limit: 3 });
 * await memory.write({ key: "issues.issue/142", title: "Crash on save", fields: { state: "open" } });
 * ```
 */
export const memory: MemoryApi = Object.freeze({
  list: () => outside("memory.list"),
  record: () => outside("memory.record"),
  content: () => outside("memory.content"),
  write: () => outside("memory.write"),
  remove: () => outside("memory.remove"),
});

/**
 * Order work (an agent session) and read the state of work this package
 * ordered. Needs the `work.agent` permission, checked when called.
 *
 * @example
 * ```ts
 * const { key } = await work.order({
 *   kind: "agent.session",
 *   agent: "claude-code",
 *   title: "Triage issue 142",
 *   prompt: { text: "Read issue 142 and propose a fix." },
 *   onInterrupted: "continue",
 *   about: "issues.issue/142",
 * });
 * ```
 */
export const work: WorkApi = Object.freeze({
  order: () => outside("work.order"),
  state: () => outside("work.state"),
});

/**
 * Reach a declared host over HTTP(S), through the host. Needs `net:<host>`
 * for each host.
 *
 * @example
 * ```ts
 * const response = await net.fetch("https://tracker.example.com/api/issues");
 * const issues = JSON.parse(response.body);
 * ```
 */
export const net: NetApi = Object.freeze({
  fetch: () => outside("net.fetch"),
});

/**
 * The device's account: its folder (list, read, parse mail and calendars) or
 * its remote origin (fetch, with the credential the host adds). Only in a
 * task step of an applet; needs `account.folder` or `account.remote`.
 *
 * @example
 * ```ts
 * const { entries } = await account.list({ under: "cur" });
 * const parsed = await account.parseMail(entries.map((e) => e.path).slice(0, 32));
 * ```
 */
export const account: AccountApi = Object.freeze({
  list: () => outside("account.list"),
  read: () => outside("account.read"),
  parseMail: () => outside("account.parseMail"),
  parseCalendar: () => outside("account.parseCalendar"),
  fetch: () => outside("account.fetch"),
});

/**
 * The host's log, prefixed with the package id (`[issues] polled 3 issues`).
 * The global `console` in the isolate is the same object.
 */
export const console: ConsoleApi = Object.freeze({
  log: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  debug: () => {},
});
