/**
 * The parser pool: Web Workers with no Deno permissions that parse standard
 * formats (MIME mail, iCalendar) for applets, so no parser ever holds
 * authority. One file is one job, with its own deadline and byte limit: a
 * worker that hangs or fails on a file is terminated and replaced, and that
 * file alone is answered as unreadable, in words. Deno does not interrupt
 * the JavaScript a terminated worker is running (it runs on until it
 * returns, its answer ignored), so the worker's own step and size limits
 * are what bound a file's cost; the deadline bounds how long a call waits.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";
import { PARSER_LIMITS, type ParserLimits } from "../limits.ts";
import type {
  CalendarJob,
  CalendarWindow,
  FromParserWorker,
  MailJob,
  ParseBounds,
  ParsedEvent,
  ParsedMessage,
  ParseResult,
  ToParserWorker,
} from "./protocol.ts";

/**
 * The module every parser worker starts from: `workers/parser_worker.ts`
 * bundled with postal-mime and ical.js (`deno task build:worker`).
 */
export const PARSER_WORKER_URL: URL = new URL(
  "../../workers/dist/parser_worker.js",
  import.meta.url,
);

/** Options for {@linkcode ParserPool}. */
export interface ParserPoolOptions {
  /** Limits in place of {@linkcode PARSER_LIMITS}'s, one by one; tests pass smaller ones. */
  limits?: Partial<ParserLimits>;
  /**
   * What each parse waits for before it starts: the host's gate for a
   * person's requests (`Foreground`), as parses are background work. None
   * waits when absent.
   */
  yieldTo?: { wait(): Promise<void> | null };
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  busy: boolean;
  /** The job the worker is on: how to answer it. */
  active?: { jobId: number; settle: (result: ParseResult<unknown>) => void };
}

/** A job before it gets its number. */
type Job = Omit<MailJob, "jobId" | "bounds"> | Omit<CalendarJob, "jobId" | "bounds">;

/**
 * Parses mail and calendar files in permissionless workers, at most
 * `min(maxWorkers, cores)` at once; no worker starts before the first job.
 *
 * @example
 * ```ts
 * const pool = new ParserPool();
 * const [message] = await pool.parseMail([await Deno.readFile("cur/1700000000.M1P2.host:2,S")]);
 * if (message.ok) console.log(message.value.subject);
 * pool.close();
 * ```
 */
export class ParserPool {
  #limits: ParserLimits;
  #yieldTo: ParserPoolOptions["yieldTo"];
  #size: number;
  #slots: Slot[] = [];
  #queue: ((slot: Slot) => void)[] = [];
  #nextJobId = 1;
  #closed = false;
  #replaced = 0;
  /** Looks at the process's memory while parses run; null while none does. */
  #guard: ReturnType<typeof setInterval> | null = null;
  /** Resident memory when the running parses began, the lowest of them. */
  #baseline = 0;

  /**
   * A pool; its workers start with its first job.
   *
   * @param options Limits in place of the defaults.
   */
  constructor(options: ParserPoolOptions = {}) {
    this.#limits = { ...PARSER_LIMITS, ...options.limits };
    this.#yieldTo = options.yieldTo;
    const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
    this.#size = Math.max(1, Math.min(this.#limits.maxWorkers, cores));
  }

  /** Workers at most. */
  get size(): number {
    return this.#size;
  }

  /** Workers terminated and replaced so far (after a hang or a failure). */
  get replacedWorkers(): number {
    return this.#replaced;
  }

  /**
   * Parses mail files, each one RFC 5322 message.
   *
   * @param files Each file's bytes.
   * @returns Per file, in order: the message, or why it could not be read.
   */
  parseMail(files: Uint8Array[]): Promise<ParseResult<ParsedMessage>[]> {
    return Promise.all(files.map((bytes) => {
      // A file of no bytes has no header either: it is no message, though a parser makes one of it.
      if (bytes.byteLength === 0) return Promise.resolve(EMPTY_FILE);
      if (bytes.byteLength > this.#limits.maxMailBytes) {
        return Promise.resolve(tooLarge(bytes.byteLength, this.#limits.maxMailBytes));
      }
      return this.#job({ type: "mail", bytes }) as Promise<ParseResult<ParsedMessage>>;
    }));
  }

  /**
   * Parses calendar files and expands their events' occurrences in a window.
   *
   * @param texts Each file's text.
   * @param window `from` (ISO 8601) and how many `days` after it.
   * @returns Per file, in order: its occurrences in the window, or why it could not be read.
   * @throws {InvalidInputError} when the window is not one: `from` no time, `days` out of range.
   */
  parseCalendar(texts: string[], window: CalendarWindow): Promise<ParseResult<ParsedEvent[]>[]> {
    const checked = checkWindow(window, this.#limits.maxWindowDays);
    const encoder = new TextEncoder();
    return Promise.all(texts.map((text) => {
      // Three bytes a character at most: only a text that may be too large is measured.
      const bytes = text.length * 3 > this.#limits.maxCalendarBytes
        ? encoder.encode(text).byteLength
        : text.length;
      if (bytes > this.#limits.maxCalendarBytes) {
        return Promise.resolve(tooLarge(bytes, this.#limits.maxCalendarBytes));
      }
      return this.#job({ type: "calendar", text, window: checked }) as Promise<
        ParseResult<ParsedEvent[]>
      >;
    }));
  }

  /** Terminates every worker; jobs still running answer that the parsers closed. */
  close(): void {
    this.#closed = true;
    this.#stopGuard();
    for (const slot of this.#slots) {
      slot.active?.settle({ ok: false, reason: "it was not parsed: the parsers were closed" });
      slot.worker.terminate();
    }
    this.#slots = [];
    for (const waiting of this.#queue.splice(0)) waiting(null as unknown as Slot);
  }

  async #job(job: Job): Promise<ParseResult<unknown>> {
    if (this.#closed) return { ok: false, reason: "it was not parsed: the parsers are closed" };
    const held = this.#yieldTo?.wait();
    if (held) await held;
    const slot = await this.#acquire();
    if (this.#closed || !slot) {
      return { ok: false, reason: "it was not parsed: the parsers are closed" };
    }
    try {
      await slot.ready;
      return await this.#run(slot, job);
    } catch (error) {
      return { ok: false, reason: `the parser could not start: ${(error as Error).message}` };
    } finally {
      this.#release(slot);
    }
  }

  #run(slot: Slot, job: Job): Promise<ParseResult<unknown>> {
    const jobId = this.#nextJobId++;
    const limits = this.#limits;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        // Still parsing past its deadline: stuck in a loop or a huge input.
        // Terminating the worker is the one way to be sure it stops.
        settle({
          ok: false,
          reason: `its parse did not finish within ${limits.jobTimeoutMs} ms and was stopped`,
        });
        this.#replace(slot);
      }, limits.jobTimeoutMs);
      const settle = (result: ParseResult<unknown>) => {
        clearTimeout(timer);
        if (slot.active?.jobId === jobId) slot.active = undefined;
        resolve(result);
      };
      slot.active = { jobId, settle };
      this.#startGuard();
      const message = { ...job, jobId, bounds: boundsOf(limits) } as ToParserWorker;
      slot.worker.postMessage(message);
    });
  }

  /**
   * Starts watching memory as a parse begins: past `maxMemoryGrowthBytes`
   * over the baseline, every running parse is stopped (the pool cannot tell
   * which worker grew) and its worker replaced, before V8 runs out of heap
   * and takes the process down.
   */
  #startGuard(): void {
    const rss = Deno.memoryUsage().rss;
    if (this.#guard !== null) {
      this.#baseline = Math.min(this.#baseline, rss);
      return;
    }
    this.#baseline = rss;
    this.#guard = setInterval(() => {
      const active = this.#slots.filter((slot) => slot.active);
      if (active.length === 0) return this.#stopGuard();
      const grown = Deno.memoryUsage().rss - this.#baseline;
      if (grown <= this.#limits.maxMemoryGrowthBytes) return;
      const mib = Math.round(this.#limits.maxMemoryGrowthBytes / 1024 / 1024);
      for (const slot of active) {
        slot.active!.settle({
          ok: false,
          reason: `its parse was stopped: the parsers' memory grew past ${mib} MiB while it ran`,
        });
        this.#replace(slot);
      }
      this.#stopGuard();
    }, this.#limits.memoryCheckMs);
  }

  #stopGuard(): void {
    if (this.#guard !== null) clearInterval(this.#guard);
    this.#guard = null;
  }

  #acquire(): Promise<Slot> {
    const free = this.#slots.find((slot) => !slot.busy);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    if (this.#slots.length < this.#size) {
      const slot = { busy: true } as Slot;
      this.#start(slot);
      this.#slots.push(slot);
      return Promise.resolve(slot);
    }
    return new Promise((resolve) => this.#queue.push(resolve));
  }

  #release(slot: Slot): void {
    slot.active = undefined;
    const next = this.#queue.shift();
    if (next) next(slot);
    else slot.busy = false;
  }

  /** Gives `slot` a new worker; whatever an earlier one says is ignored. */
  #start(slot: Slot): void {
    const worker = new Worker(PARSER_WORKER_URL, {
      type: "module",
      name: "sync-parser",
      deno: { permissions: "none" },
    } as WorkerOptions);
    slot.worker = worker;
    slot.ready = new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<FromParserWorker>) => {
        if (slot.worker !== worker) return;
        const message = event.data;
        if (message.type === "ready") resolve();
        else if (slot.active?.jobId === message.jobId) slot.active.settle(message.result);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        if (slot.worker !== worker) return;
        reject(new Error(event.message));
        slot.active?.settle({ ok: false, reason: `the parser failed on it: ${event.message}` });
        this.#replace(slot);
      };
    });
    // A failed start is told to the job that awaits `ready`, never unhandled.
    slot.ready.catch(() => {});
  }

  #replace(slot: Slot): void {
    slot.worker.terminate();
    slot.active = undefined;
    this.#replaced++;
    if (!this.#closed) this.#start(slot);
  }
}

/** What a worker holds a parse to. */
function boundsOf(limits: ParserLimits): ParseBounds {
  return {
    maxTextChars: limits.maxTextChars,
    maxAttachments: limits.maxAttachments,
    maxMimeDepth: limits.maxMimeDepth,
    maxAddresses: limits.maxAddresses,
    maxEncodedWords: limits.maxEncodedWords,
    maxOccurrences: limits.maxOccurrences,
    maxRecurrenceSteps: limits.maxRecurrenceSteps,
    maxEventTextChars: limits.maxEventTextChars,
    maxAttendees: limits.maxAttendees,
    maxFieldChars: limits.maxFieldChars,
    maxResultChars: limits.maxResultChars,
  };
}

/** The answer for a mail file of no bytes. */
const EMPTY_FILE: ParseResult<never> = { ok: false, reason: "the file is empty" };

function tooLarge(bytes: number, max: number): ParseResult<never> {
  return {
    ok: false,
    reason: `it is ${bytes.toLocaleString("en-US")} bytes; the most parsed is ` +
      `${max.toLocaleString("en-US")}`,
  };
}

/**
 * The window, checked: `from` a time, `days` a whole number from 1 to `maxDays`.
 *
 * @throws {InvalidInputError} naming what is wrong.
 */
function checkWindow(window: CalendarWindow, maxDays: number): CalendarWindow {
  if (
    !window || typeof window.from !== "string" || Number.isNaN(Date.parse(window.from))
  ) {
    throw new InvalidInputError(
      `The calendar window needs from: an ISO 8601 time such as 2027-03-01T00:00:00Z`,
    );
  }
  if (!Number.isInteger(window.days) || window.days < 1 || window.days > maxDays) {
    throw new InvalidInputError(
      `The calendar window's days must be a whole number from 1 to ${maxDays}, not ${window.days}`,
    );
  }
  return { from: new Date(Date.parse(window.from)).toISOString(), days: window.days };
}
