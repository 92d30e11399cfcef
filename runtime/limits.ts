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
  /** Extra time the host waits past `timeoutMs` before it terminates a silent worker. */
  workerGraceMs: number;
  /** Console lines one call may write; the rest are dropped with one notice. */
  maxConsoleLines: number;
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
  stackBytes: 512 * 1024,
  maxConcurrentCalls: 4,
  rateLimit: 60,
  rateWindowMs: 60_000,
  maxValueBytes: 1024 * 1024,
  maxHostValueBytes: 1024 * 1024,
  maxHostCalls: 1_000,
  workerGraceMs: 1_000,
  maxConsoleLines: 100,
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
}

/** The limits every record is held to. */
export const RECORD_LIMITS: Readonly<RecordLimits> = Object.freeze({
  maxTitleChars: 500,
  maxFieldsBytes: 32 * 1024,
  maxContentBytes: 512 * 1024,
  maxKeyChars: 300,
  maxListLimit: 500,
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

/** Limits on what one package's manifest may declare. */
export interface ManifestLimits {
  /**
   * Handlers one package may declare. Each is a line on the install card, a
   * key `register()` returns before every call, and possibly a tool offered
   * to agents; a package with more is several packages.
   */
  maxHandlers: number;
}

/** The limits every manifest is held to. */
export const MANIFEST_LIMITS: Readonly<ManifestLimits> = Object.freeze({
  maxHandlers: 256,
});

/** Limits on what the web app reads from a request. */
export interface WebLimits {
  /**
   * Largest request body, in bytes. Every body the app takes is JSON; the
   * largest it has to carry is a handler's payload (`maxValueBytes`) with the
   * few names around it.
   */
  maxJsonBodyBytes: number;
}

/** The limits every request to the web app is held to. */
export const WEB_LIMITS: Readonly<WebLimits> = Object.freeze({
  maxJsonBodyBytes: 2 * 1024 * 1024,
});
