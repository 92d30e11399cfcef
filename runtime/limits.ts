/**
 * The host's limits. They are the host's, not the package's: a package cannot
 * raise them. `docs/limits.md` states the same numbers for authors; change both
 * together.
 *
 * @module
 */

/** Limits applied to every handler call. Tests pass smaller ones. */
export interface HandlerLimits {
  /** Wall-clock time a call may take, awaits included. */
  timeoutMs: number;
  /** Memory a call's QuickJS runtime may allocate. */
  memoryBytes: number;
  /** Stack a call's QuickJS runtime may use. */
  stackBytes: number;
  /** Calls running at once across the host (one worker each). */
  maxConcurrentCalls: number;
  /** Calls of one handler in one project within `rateWindowMs`. */
  rateLimit: number;
  /** The window `rateLimit` counts over. */
  rateWindowMs: number;
  /** Largest payload handed to a handler, or answer taken from it, as JSON bytes. */
  maxValueBytes: number;
  /**
   * Largest argument or answer of one host function call, as JSON bytes. A
   * function that bounds its own answer says so (`maxAnswerBytes`):
   * `net.fetch`'s answer is bounded by `maxFetchBytes` and
   * `maxFetchHeaderBytes`, so that those limits are the body's and the headers'.
   */
  maxHostValueBytes: number;
  /** Host function calls one handler call may make. */
  maxHostCalls: number;
  /**
   * Host function calls of one handler call the host performs at once; more
   * wait in the isolate, in the order they were made.
   */
  maxHostCallsInFlight: number;
  /**
   * Bytes the host calls of one handler call performed at once may bring into
   * the host: each holds its argument's JSON and, for `net.fetch`,
   * `maxFetchBytes` for the body. A call that needs more than this alone runs
   * alone.
   */
  maxHostBytesInFlight: number;
  /** Extra time the host waits past `timeoutMs` before it terminates a silent worker. */
  workerGraceMs: number;
  /** Console lines one call may write; the rest are dropped with one notice. */
  maxConsoleLines: number;
  /** Characters of one console line; a longer one is cut, saying how much was left out. */
  maxConsoleLineChars: number;
  /** Time `net.fetch` waits for a response. */
  fetchTimeoutMs: number;
  /** Largest `net.fetch` response body, in bytes as they arrive. */
  maxFetchBytes: number;
  /** Largest `net.fetch` response headers, names and values together, in bytes. */
  maxFetchHeaderBytes: number;
}

/** The limits every handler runs under. */
export const DEFAULT_LIMITS: Readonly<HandlerLimits> = Object.freeze({
  timeoutMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  // QuickJS counts its stack in WebAssembly memory, but its frames also use the
  // worker's native stack (V8 gives a worker about 1 MiB). Measured on this build,
  // the engine's own recursion over deep data (JSON.stringify of nested arrays)
  // exhausts the native stack first above 80 KiB; at 64 KiB QuickJS stops every
  // shape of recursion first (tests/isolate/default_limits_test.ts), leaving
  // about 330 frames of plain recursion and 4,000 levels of JSON.
  stackBytes: 64 * 1024,
  maxConcurrentCalls: 4,
  rateLimit: 60,
  rateWindowMs: 60_000,
  maxValueBytes: 1024 * 1024,
  maxHostValueBytes: 1024 * 1024,
  maxHostCalls: 1_000,
  maxHostCallsInFlight: 16,
  // About seven 1 MiB fetches at once: one call's answers in flight stay a few
  // tens of MiB of the host's memory, however many it starts.
  maxHostBytesInFlight: 8 * 1024 * 1024,
  workerGraceMs: 1_000,
  maxConsoleLines: 100,
  maxConsoleLineChars: 4096,
  fetchTimeoutMs: 10_000,
  maxFetchBytes: 1024 * 1024,
  maxFetchHeaderBytes: 64 * 1024,
});

/** Limits on one record in project memory. */
export interface RecordLimits {
  /** Title length in characters. */
  maxTitleChars: number;
  /** `fields` as JSON bytes. */
  maxFieldsBytes: number;
  /** `content` as UTF-8 bytes. */
  maxContentBytes: number;
  /** Record key length in characters. */
  maxKeyChars: number;
  /** Records one list call may return. */
  maxListLimit: number;
  /**
   * The JSON one list page may take, in characters. A page ends at this size
   * even before `limit` records (its cursor says more follow), so a page of
   * records near their size limits still fits one host call's answer
   * (`maxHostValueBytes`). A page always holds at least one record.
   */
  maxListPageChars: number;
}

/** The limits every record is held to. */
export const RECORD_LIMITS: Readonly<RecordLimits> = Object.freeze({
  maxTitleChars: 500,
  maxFieldsBytes: 32 * 1024,
  maxContentBytes: 512 * 1024,
  maxKeyChars: 300,
  maxListLimit: 500,
  maxListPageChars: 512 * 1024,
});

/**
 * Limits on the work one handler call orders. An order is staged in the
 * call's transaction and committed with its records, in project memory, so
 * these keep every order inside what one atomic write of Deno KV takes (a
 * value of 64 KiB at most) and leave the call's records most of the commit.
 */
export interface WorkOrderLimits {
  /** Orders one call may place. */
  maxOrdersPerCall: number;
  /** One order as stored (its JSON, UTF-8), source and key included, in bytes. */
  maxOrderBytes: number;
  /** `agent` length in characters. */
  maxAgentChars: number;
  /** `title` length in characters. */
  maxTitleChars: number;
  /** `prompt.text` length in characters. */
  maxPromptChars: number;
  /** Entries of `prompt.attachments`. */
  maxAttachments: number;
  /** One attachment's length in characters. */
  maxAttachmentChars: number;
  /** `about` length in characters. */
  maxAboutChars: number;
  /**
   * Orders agents may place in one project (over sync-mcp's `work_order`)
   * within {@linkcode WorkOrderLimits.agentOrderWindowMs}. A session Sync
   * starts may order work that orders work in turn: this bounds how fast.
   */
  maxAgentOrders: number;
  /** The window `maxAgentOrders` counts in, in ms. */
  agentOrderWindowMs: number;
  /** Why ordered work failed, as `work.state()` and sync-mcp's `work_state` tell it, in characters. */
  maxReasonChars: number;
}

/** The limits every work order is held to. */
export const WORK_ORDER_LIMITS: Readonly<WorkOrderLimits> = Object.freeze({
  maxOrdersPerCall: 50,
  maxOrderBytes: 60 * 1024,
  maxAgentChars: 100,
  maxTitleChars: 200,
  maxPromptChars: 60_000,
  maxAttachments: 32,
  maxAttachmentChars: 4096,
  maxAboutChars: 300,
  maxAgentOrders: 10,
  agentOrderWindowMs: 60_000,
  maxReasonChars: 1_000,
});

/**
 * Limits on what a receipt keeps of an error. A receipt is one value in the
 * installation's KV, which takes 64 KiB at most; a handler decides what its
 * error says, so what is kept of it is cut, with a mark saying how much was
 * left out, rather than lose the receipt.
 */
export interface ReceiptLimits {
  /** An error's name, in characters. */
  maxErrorNameChars: number;
  /** An error's message, in characters. */
  maxErrorMessageChars: number;
  /** A handler's name as the receipt keeps it, in characters (a person may type any). */
  maxHandlerChars: number;
  /**
   * Records a receipt names as written by its call; past this many it says
   * how many more it left out. Each key is at most 300 characters, so twenty
   * keep the receipt far under one value.
   */
  maxRecords: number;
}

/** The limits every receipt is held to. */
export const RECEIPT_LIMITS: Readonly<ReceiptLimits> = Object.freeze({
  maxErrorNameChars: 100,
  maxErrorMessageChars: 4096,
  maxHandlerChars: 200,
  maxRecords: 20,
});

/** Limits on a package archive, which is untrusted input. */
export interface ArchiveLimits {
  /** Compressed archive size, in bytes. */
  maxArchiveBytes: number;
  /** Unpacked size of all entries together, in bytes. */
  maxUnpackedBytes: number;
  /** Number of entries (files and folders). */
  maxEntries: number;
}

/** The limits every archive is held to. */
export const ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxArchiveBytes: 32 * 1024 * 1024,
  maxUnpackedBytes: 128 * 1024 * 1024,
  maxEntries: 2_000,
});

/**
 * How a KV write that finds its database locked by another program is
 * retried. Only the installation's owner opens its databases, so this is for
 * what Sync does not control (a backup, a person's SQLite shell); SQLite
 * itself has already waited its own busy time before each refusal.
 */
export interface LockRetryLimits {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; each later wait is twice the one before. */
  firstDelayMs: number;
}

/** The retries every KV of the installation and of a project's memory get. */
export const LOCK_RETRY: Readonly<LockRetryLimits> = Object.freeze({
  attempts: 5,
  firstDelayMs: 50,
});

/**
 * Limits on the files of a package Sync reads (its manifest, service module,
 * screen, prompt and types), from a linked folder or an unpacked archive. No
 * file can be larger than an archive may be, and a manifest is small.
 */
export interface PackageFileLimits {
  /** A manifest, in bytes. */
  maxManifestBytes: number;
  /** Any other file of a package, in bytes. */
  maxFileBytes: number;
}

/** The limits every package's files are read under. */
export const PACKAGE_FILE_LIMITS: Readonly<PackageFileLimits> = Object.freeze({
  maxManifestBytes: 1024 * 1024,
  maxFileBytes: 32 * 1024 * 1024,
});

/** Limits on what one package's manifest may declare. */
export interface ManifestLimits {
  /**
   * Handlers one package may declare. Each is a line on the install card, a
   * key `register()` returns before every call, and possibly a tool offered
   * to agents; a package with more is several packages.
   */
  maxHandlers: number;
  /**
   * Levels of nesting of an `agent.input` or `agent.output` JSON Schema, as
   * JSON (each object or array is a level). The schema is listed to every
   * client and walked by every check: a schema nested thousands deep would
   * overflow the stack of whatever walks it.
   */
  maxAgentSchemaDepth: number;
  /** Bytes of an `agent.input` or `agent.output` JSON Schema, as JSON. */
  maxAgentSchemaBytes: number;
  /**
   * Characters of a website device's `device.url`: an address a person
   * opens, shown on the device's view, not a place to carry data.
   */
  maxDeviceUrlChars: number;
}

/** The limits every manifest is held to. */
export const MANIFEST_LIMITS: Readonly<ManifestLimits> = Object.freeze({
  maxHandlers: 256,
  maxAgentSchemaDepth: 32,
  maxAgentSchemaBytes: 64 * 1024,
  maxDeviceUrlChars: 2000,
});

/** Limits on the projects an installation keeps track of. */
export interface ProjectLimits {
  /**
   * Longest path of a project folder, in bytes of UTF-8. The installation
   * keys what it keeps of a project (its receipts, claims, approvals) by
   * this path, with an id and a handler's name beside it, and Deno KV
   * refuses a key over 2,048 bytes.
   */
  maxPathBytes: number;
  /**
   * Largest `.sync/extensions.json`, in bytes. A repository carries it, so
   * it is read as untrusted: a list of ids is small.
   */
  maxDeclarationBytes: number;
}

/** The limits every project folder is held to. */
export const PROJECT_LIMITS: Readonly<ProjectLimits> = Object.freeze({
  maxPathBytes: 1024,
  maxDeclarationBytes: 256 * 1024,
});

/** Limits on what the web app reads from a request. */
export interface WebLimits {
  /**
   * Largest request body, in bytes. Every body the app takes is JSON; the
   * largest it has to carry is a handler's payload (`maxValueBytes`) with the
   * few names around it.
   */
  maxJsonBodyBytes: number;
  /**
   * Deepest nesting of arrays and objects in a request body. Parsing a body
   * of a million `[` holds the event loop most of a second; a body nested
   * deeper than this is refused before it is parsed.
   */
  maxJsonDepth: number;
}

/** The limits every request to the web app is held to. */
export const WEB_LIMITS: Readonly<WebLimits> = Object.freeze({
  maxJsonBodyBytes: 2 * 1024 * 1024,
  maxJsonDepth: 128,
});

/** What an extension's page shows of the package's own files. */
export interface ExtensionPageLimits {
  /** Characters of `prompt/instructions.md` shown; the rest is cut, with a mark saying how much. */
  maxPromptChars: number;
  /** Characters of one `types/*.json` file read; a larger file is shown as unread, with why. */
  maxTypeFileChars: number;
  /** Receipts on the page unless the request asks for fewer or more (at most `RECEIPTS_KEPT`). */
  defaultReceipts: number;
}

/** The numbers of {@linkcode ExtensionPageLimits}. */
export const EXTENSION_PAGE_LIMITS: Readonly<ExtensionPageLimits> = Object.freeze({
  maxPromptChars: 100_000,
  maxTypeFileChars: 100_000,
  defaultReceipts: 50,
});

/** Limits on the owner's event stream (`GET /api/events`). */
export interface EventLimits {
  /**
   * Facts held for one watcher that has not taken them yet. A page whose
   * connection does not drain falls behind by at most this many; past it
   * they are dropped and it is told to read the state again (`resync`).
   */
  maxQueuedEvents: number;
  /**
   * Bytes of the facts (their JSON) held for one watcher that has not taken
   * them yet; past it they are dropped as past `maxQueuedEvents`.
   */
  maxQueuedBytes: number;
  /** How often a quiet stream sends a comment, so proxies and the page know it lives, in ms. */
  heartbeatMs: number;
}

/** The limits of every event stream. */
export const EVENT_LIMITS: Readonly<EventLimits> = Object.freeze({
  maxQueuedEvents: 256,
  maxQueuedBytes: 4 * 1024 * 1024,
  heartbeatMs: 15_000,
});

/** Limits of watching the linked folders of packages installed in projects a window has open. */
export interface LinkedFolderLimits {
  /**
   * The most folders watched at once, in all: a package's folder and the
   * folders of the files its manifest names. Past it the rest are not
   * watched, and their changes show at the next reload.
   */
  maxWatchedFolders: number;
  /** How long changes are gathered after the first, in ms, before they are told once. */
  settleMs: number;
}

/** The limits of watching linked folders (`runtime/web/linked_folders.ts`). */
export const LINKED_FOLDER_LIMITS: Readonly<LinkedFolderLimits> = Object.freeze({
  maxWatchedFolders: 64,
  settleMs: 200,
});

/** Limits on archives uploaded to the web app to install from. */
export interface UploadLimits {
  /** Largest upload, in bytes: an archive install would refuse is not taken. */
  maxUploadBytes: number;
  /** How long an upload no install used is kept, in ms, before it is removed. */
  keepUnusedMs: number;
}

/** The limits of every upload. */
export const UPLOAD_LIMITS: Readonly<UploadLimits> = Object.freeze({
  maxUploadBytes: ARCHIVE_LIMITS.maxArchiveBytes,
  keepUnusedMs: 60 * 60 * 1000,
});

/**
 * Limits on what Sync keeps of an agent session. The transcript is stored in
 * the installation, one KV entry per transcript entry (a streamed reply's
 * chunks joined), so that Chat shows it after a restart; past these, the
 * oldest entries are dropped and counted as `omitted`.
 */
export interface SessionLimits {
  /** Transcript entries kept per session. */
  maxTranscriptEntries: number;
  /** Bytes of transcript kept per session (the entries' JSON, UTF-8). */
  maxTranscriptBytes: number;
  /** One stored entry's JSON, in bytes; a larger entry's text is cut to fit (KV takes 64 KiB a value). */
  maxStoredEntryBytes: number;
  /** How long streamed entries wait before they are written, in ms; a state change writes at once. */
  flushAfterMs: number;
  /** Characters of a session's title made from a person's first turn. */
  maxTitleChars: number;
  /** Characters of a person's turn. */
  maxTurnChars: number;
  /** Characters of the transcript a new session is seeded with when the agent cannot load its own. */
  maxSeedChars: number;
  /** Characters of the transcript a kept `chat.conversation` record holds as its content. */
  maxKeptChars: number;
  /**
   * How long an agent whose turn ended is kept running for the next turn, in
   * ms; then it is stopped, and the next turn raises it again (`session/load`).
   */
  idleAgentMs: number;
}

/** The limits of every agent session. */
export const SESSION_LIMITS: Readonly<SessionLimits> = Object.freeze({
  maxTranscriptEntries: 2_000,
  maxTranscriptBytes: 4 * 1024 * 1024,
  maxStoredEntryBytes: 60 * 1024,
  flushAfterMs: 250,
  maxTitleChars: 80,
  maxTurnChars: 60_000,
  maxSeedChars: 60_000,
  maxKeptChars: 500_000,
  idleAgentMs: 10 * 60_000,
});

/** Limits on the agent definitions a person adds. */
export interface AgentDefinitionLimits {
  /** Characters of a name. */
  maxNameChars: number;
  /** Characters of the program. */
  maxCommandChars: number;
  /** Arguments. */
  maxArgs: number;
  /** Characters of one argument. */
  maxArgChars: number;
  /** Extra environment variables. */
  maxEnv: number;
  /** Characters of one variable's value. */
  maxEnvValueChars: number;
}

/** The limits of every agent definition. */
export const AGENT_DEFINITION_LIMITS: Readonly<AgentDefinitionLimits> = Object.freeze({
  maxNameChars: 64,
  maxCommandChars: 4096,
  maxArgs: 64,
  maxArgChars: 4096,
  maxEnv: 64,
  maxEnvValueChars: 8192,
});

/** Limits on the long-lived processes Sync starts (agents, and extensions' processes). */
export interface ProcessLimits {
  /**
   * Processes one owner (an extension, an agent session's orderer) may have
   * running at once. Each is a program with the person's full access; an
   * owner that wants more is starting them in a loop.
   */
  maxPerOwner: number;
  /** Processes running at once, whoever started them. */
  maxRunning: number;
  /** The end of a process's stderr kept to show when it fails, in bytes. */
  stderrTailBytes: number;
  /** Time a process group has after SIGTERM before it gets SIGKILL, in ms. */
  stopGraceMs: number;
}

/** The limits every supervised process is held to. */
export const PROCESS_LIMITS: Readonly<ProcessLimits> = Object.freeze({
  maxPerOwner: 16,
  maxRunning: 64,
  stderrTailBytes: 16 * 1024,
  stopGraceMs: 3_000,
});

/** Limits on what a screen's page sends over `GET /api/processes`. */
export interface ScreenProcessLimits {
  /** The largest message the page may send, in bytes; a larger one is refused. */
  maxMessageBytes: number;
  /** Arguments a spawn may append to the declared ones. */
  maxArgs: number;
  /** Variables a spawn may set or remove. */
  maxEnv: number;
  /**
   * Output bytes waiting to be sent to a page before a program's stdout is
   * read further: a page that does not keep up slows the program, never the
   * server's memory.
   */
  maxBufferedBytes: number;
}

/** The numbers of {@linkcode ScreenProcessLimits}. */
export const SCREEN_PROCESS_LIMITS: Readonly<ScreenProcessLimits> = Object.freeze({
  maxMessageBytes: 1024 * 1024,
  maxArgs: 256,
  maxEnv: 256,
  maxBufferedBytes: 1024 * 1024,
});

/** Limits on what the window's Records view asks of a project's memory. */
export interface RecordViewLimits {
  /** Characters of a search's text; a longer one is refused. */
  maxSearchChars: number;
  /** Records one listing or search reads before it answers with a cursor to go on. */
  maxScanned: number;
  /** Records on a page when the request names no limit. */
  defaultPage: number;
  /** Records on a page at most. */
  maxPage: number;
  /** Kinds the kinds' list names at most. */
  maxKinds: number;
  /** Records counted per kind; past it the count says "more". */
  maxKindCount: number;
}

/** The numbers of {@linkcode RecordViewLimits}. */
export const RECORD_VIEW_LIMITS: Readonly<RecordViewLimits> = Object.freeze({
  maxSearchChars: 200,
  maxScanned: 5_000,
  defaultPage: 50,
  maxPage: 200,
  maxKinds: 200,
  maxKindCount: 1_000,
});

/**
 * How much of a call's console lines its receipt keeps (`receipt_console.ts`
 * in the host): one value of Deno KV, so at most `maxChars` UTF-16 code
 * units in all (three bytes each at most in UTF-8, under KV's 64 KiB).
 */
export interface ReceiptConsoleLimits {
  /** Lines kept; the rest are counted as left out. */
  maxLines: number;
  /** Characters of one kept line; a longer one is cut, saying how much was left out. */
  maxLineChars: number;
  /** Characters of every kept line together; lines past it are counted as left out. */
  maxChars: number;
}

/** The numbers of {@linkcode ReceiptConsoleLimits}. */
export const RECEIPT_CONSOLE_LIMITS: Readonly<ReceiptConsoleLimits> = Object.freeze({
  maxLines: 100,
  maxLineChars: 2_000,
  maxChars: 16_000,
});

/** Limits of a person's Run now on an extension's page (`POST /api/extensions/:id/run`). */
export interface RunNowLimits {
  /** Characters of the answer's JSON, laid out, sent back to the page; the rest is cut with a mark. */
  maxAnswerChars: number;
}

/** The numbers of {@linkcode RunNowLimits}. */
export const RUN_NOW_LIMITS: Readonly<RunNowLimits> = Object.freeze({
  maxAnswerChars: 20_000,
});

/**
 * Limits of the parsers (`runtime/parsers/`): permissionless workers that
 * read mail and calendar files for applets. Each file is one job, so a
 * hostile file costs its own answer and nothing else.
 */
export interface ParserLimits {
  /** Workers at most; never more than the machine's cores. */
  maxWorkers: number;
  /**
   * How long one file's parse may take, in ms; past it the worker is
   * terminated and replaced, and the file is answered as unreadable.
   */
  jobTimeoutMs: number;
  /**
   * Largest mail file parsed, in bytes (a larger one is answered as
   * unreadable, never read): providers refuse messages past about 25 MB, and
   * a worker holds a few times a message's size while it parses it.
   */
  maxMailBytes: number;
  /** Largest calendar file parsed, in bytes. */
  maxCalendarBytes: number;
  /** Characters of a message's text answered; the rest is cut (`textCut`). */
  maxTextChars: number;
  /** Attachments listed per message; the rest are left out of the list. */
  maxAttachments: number;
  /**
   * Levels of MIME parts nested in parts one message may have; a deeper one
   * is answered as unreadable. Real mail nests a handful.
   */
  maxMimeDepth: number;
  /** Addresses per To or Cc list, and Message-IDs of References, kept per message. */
  maxAddresses: number;
  /**
   * Encoded words (`=?utf-8?B?…?=`) one mail file may hold: postal-mime
   * joins them in time that grows faster than their count (40,000 take it
   * seconds, 100,000 minutes), and a parse past its deadline runs on.
   * Real mail holds a few in each header.
   */
  maxEncodedWords: number;
  /** Occurrences answered per calendar file; past it the file is answered as unreadable. */
  maxOccurrences: number;
  /**
   * Occurrences one recurring event is stepped through, in or before the
   * window: a rule that repeats every second since 1970 ends here, not at
   * the deadline.
   */
  maxRecurrenceSteps: number;
  /** Characters of an event's summary, description or location answered. */
  maxEventTextChars: number;
  /** Attendees listed per event. */
  maxAttendees: number;
  /**
   * Characters of any other text field answered (a subject, a Message-ID, a
   * name or address, a file name, a UID, a time zone): a header of megabytes
   * is cut here, so one file's answer stays within what a call carries.
   */
  maxFieldChars: number;
  /**
   * Characters of JSON one calendar file's occurrences may come to: every
   * occurrence repeats its event's fields, so a file of a few MiB expanded
   * over a long window could answer gigabytes. Past it the file is answered
   * as unreadable, before the worker builds the rest.
   */
  maxResultChars: number;
  /** Days a calendar window may span. */
  maxWindowDays: number;
  /**
   * How much the process's resident memory may grow, in bytes, while files
   * are parsed, over what it was when the parses began. A worker that runs
   * V8 out of heap takes the whole process down with it (Deno gives workers
   * no heap limit of their own), so the pool watches the memory it can see
   * and stops its running parses well before that.
   */
  maxMemoryGrowthBytes: number;
  /** How often that memory is looked at while files are parsed, in ms. */
  memoryCheckMs: number;
}

/** The limits every parse runs under. */
export const PARSER_LIMITS: Readonly<ParserLimits> = Object.freeze({
  maxWorkers: 2,
  jobTimeoutMs: 10_000,
  maxMailBytes: 25 * 1024 * 1024,
  maxCalendarBytes: 4 * 1024 * 1024,
  maxTextChars: 20_000,
  maxAttachments: 100,
  maxMimeDepth: 64,
  maxAddresses: 200,
  maxEncodedWords: 10_000,
  maxOccurrences: 1_000,
  maxRecurrenceSteps: 50_000,
  maxEventTextChars: 4_000,
  maxAttendees: 200,
  maxFieldChars: 1_000,
  maxResultChars: 4 * 1024 * 1024,
  maxWindowDays: 400,
  maxMemoryGrowthBytes: 1024 * 1024 * 1024,
  memoryCheckMs: 25,
});

/** Limits of the `account.*` host functions on a device's account folder. */
export interface AccountLimits {
  /** Entries of one `account.list` page. */
  maxListEntries: number;
  /** Folder levels `account.list({ recursive: true })` walks below where it starts. */
  maxListDepth: number;
  /** Characters of a path handed to an `account.*` function. */
  maxPathChars: number;
  /** Bytes `account.read` answers as text; a larger file is refused. */
  maxReadBytes: number;
  /** Paths of one `account.parseMail` or `account.parseCalendar` call. */
  maxParsePaths: number;
  /**
   * JSON characters a parse call answers at most: a call of 32 long messages
   * fits; one past it is refused, asking for fewer paths.
   */
  maxParseAnswerChars: number;
  /** How long reading one file may take, in ms, before it is answered as busy (`TransientError`). */
  readTimeoutMs: number;
}

/** The limits of every `account.*` call. */
export const ACCOUNT_LIMITS: Readonly<AccountLimits> = Object.freeze({
  maxListEntries: 1_000,
  maxListDepth: 8,
  maxPathChars: 1024,
  maxReadBytes: 1024 * 1024,
  maxParsePaths: 32,
  maxParseAnswerChars: 8 * 1024 * 1024,
  readTimeoutMs: 5_000,
});

/** Limits of devices and their tasks (`runtime/applets/`). */
export interface AppletLimits {
  /** Steps (handler calls) one attempt makes at most, following `continue`; the attempt then ends `failed`. */
  maxStepsPerAttempt: number;
  /** Characters of JSON a step's `continue` value may hold; a larger one fails the attempt. */
  maxContinueChars: number;
  /**
   * How long the runner waits before each retry of a run that failed for a
   * transient reason (a timeout, a busy file, the network), in ms: one entry
   * per retry, so a run is retried as many times as there are entries.
   */
  retryBackoffMs: readonly number[];
  /** Quiet time after the last change in an observed folder before its run is brought forward, in ms. */
  observationDebounceMs: number;
  /** Attempts kept per task; older ones are dropped. */
  attemptsKept: number;
  /** Attempts a device's view shows per task, newest first. */
  attemptsShown: number;
  /** How often the runner looks for due tasks when nothing brought a run forward, in ms. */
  lookEveryMs: number;
  /** Folders watched at once for observation, in all; further devices run on their schedule only. */
  maxWatchedFolders: number;
  /** Characters of a remote account's credential. */
  maxCredentialChars: number;
  /** Characters of a remote account's origin, and of a folder account's path. */
  maxAccountChars: number;
  /** Characters of the consent's endpoint. */
  maxEndpointChars: number;
}

/** The numbers of {@linkcode AppletLimits}. */
export const APPLET_LIMITS: Readonly<AppletLimits> = Object.freeze({
  maxStepsPerAttempt: 2_000,
  maxContinueChars: 64 * 1024,
  retryBackoffMs: Object.freeze([30_000, 120_000, 600_000]),
  observationDebounceMs: 2_000,
  attemptsKept: 50,
  attemptsShown: 10,
  lookEveryMs: 60_000,
  maxWatchedFolders: 32,
  maxCredentialChars: 8_192,
  maxAccountChars: 4_096,
  maxEndpointChars: 2_048,
});
