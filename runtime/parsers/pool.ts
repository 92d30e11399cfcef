/**
 * The parser pool: child processes with no Deno permissions that parse
 * standard formats (MIME mail, iCalendar) for applets, so no parser ever
 * holds authority. One file is one job, with its own deadline and byte
 * limit. Each child is `deno run` with no `--allow-*` flag and a V8 heap
 * limit of its own: a file that loops past its deadline has its child
 * killed (SIGKILL, which stops it), a file that allocates without end runs
 * its child out of heap (V8 ends that process, not this one); either way
 * that file alone is answered as unreadable, in words, and the next job
 * gets a new child.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";
import { PARSER_LIMITS, type ParserLimits } from "../limits.ts";
import {
  type CalendarJob,
  type CalendarWindow,
  type FromParserWorker,
  type ParseBounds,
  type ParsedEvent,
  type ParsedMessage,
  type ParseResult,
  type ProbeJob,
  readFrames,
  toBase64,
  type ToParserWorker,
  writeFrame,
} from "./protocol.ts";

/**
 * The module every parser process runs: `workers/parser_worker.ts` bundled
 * with postal-mime and ical.js (`deno task build:worker`), one file that
 * imports nothing, since the process may read no other.
 */
export const PARSER_WORKER_URL: URL = new URL(
  "../../workers/dist/parser_worker.js",
  import.meta.url,
);

/** Options for {@linkcode ParserPool}. */
export interface ParserPoolOptions {
  /** Limits in place of {@linkcode PARSER_LIMITS}'s, one by one; tests pass smaller ones. */
  limits?: Partial<ParserLimits>;
}

interface Slot {
  /** Its child; none when the last one could not be started (tried again with the next job). */
  child?: Deno.ChildProcess;
  /** Where jobs are written: the child's stdin. */
  stdin: WritableStreamDefaultWriter<Uint8Array>;
  ready: Promise<void>;
  busy: boolean;
  /** The deadline of the child's start; it also keeps Sync running while the child starts. */
  starting?: ReturnType<typeof setTimeout>;
  /** True once the pool has killed the child: its end is then no news. */
  killed: boolean;
  /** The job the child is on: how to answer it. */
  active?: { jobId: number; settle: (result: ParseResult<unknown>) => void };
}

/** A job before it gets its number. */
type Job =
  | { type: "mail"; bytes: Uint8Array }
  | Omit<CalendarJob, "jobId" | "bounds">
  | Omit<ProbeJob, "jobId">;

/** Every parser process alive in this process, to be killed when it exits. */
const LIVE = new Set<Deno.ChildProcess>();
let killedAtExit = false;

/** Kills every parser process when this process exits, however it exits normally. */
function killAtExit(): void {
  if (killedAtExit) return;
  killedAtExit = true;
  globalThis.addEventListener("unload", () => {
    for (const child of LIVE) killChild(child);
  });
}

/** SIGKILL to a child that may already be gone. */
function killChild(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // Already exited: nothing is left to stop.
  }
}

/** Characters of a child's stderr kept: its last words, for a failure's reason. */
const STDERR_CHARS = 4_096;

/**
 * Parses mail and calendar files in permissionless child processes, at most
 * `min(maxWorkers, cores)` at once; no child starts before the first job.
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
  #size: number;
  #slots: Slot[] = [];
  #queue: ((slot: Slot) => void)[] = [];
  #nextJobId = 1;
  #closed = false;
  #replaced = 0;

  /**
   * A pool; its children start with its first job.
   *
   * @param options Limits in place of the defaults.
   */
  constructor(options: ParserPoolOptions = {}) {
    this.#limits = { ...PARSER_LIMITS, ...options.limits };
    const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
    this.#size = Math.max(1, Math.min(this.#limits.maxWorkers, cores));
  }

  /** Children at most. */
  get size(): number {
    return this.#size;
  }

  /** Children killed or ended and replaced so far (after a hang, a failure, or memory). */
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

  /**
   * The process ids of the children running now, the order of no meaning.
   * Tests look for them in `/proc`.
   */
  get pids(): number[] {
    return this.#slots.flatMap((slot) => slot.child ? [slot.child.pid] : []);
  }

  /**
   * Asks a child to read the file at `path`: no parse does, so this answers
   * why it may not. For tests of the children's permissions.
   *
   * @param path Any file.
   * @returns Its size in bytes, or why it could not be read.
   */
  probeRead(path: string): Promise<ParseResult<number>> {
    return this.#job({ type: "probe", path }) as Promise<ParseResult<number>>;
  }

  /** Kills every child; jobs still running answer that the parsers closed. */
  close(): void {
    this.#closed = true;
    for (const slot of this.#slots) {
      slot.active?.settle({ ok: false, reason: "it was not parsed: the parsers were closed" });
      this.#kill(slot);
    }
    this.#slots = [];
    for (const waiting of this.#queue.splice(0)) waiting(null as unknown as Slot);
  }

  async #job(job: Job): Promise<ParseResult<unknown>> {
    if (this.#closed) return { ok: false, reason: "it was not parsed: the parsers are closed" };
    const slot = await this.#acquire();
    if (this.#closed || !slot) {
      return { ok: false, reason: "it was not parsed: the parsers are closed" };
    }
    try {
      if (!slot.child) this.#start(slot);
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
        // SIGKILL stops the child wherever it is.
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
      const message = (job.type === "mail"
        ? { ...job, bytes: toBase64(job.bytes), jobId, bounds: boundsOf(limits) }
        : job.type === "calendar"
        ? { ...job, jobId, bounds: boundsOf(limits) }
        : { ...job, jobId }) as ToParserWorker;
      writeFrame(slot.stdin, message).catch(() => {
        // The child is gone; its end answers the job.
      });
    });
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

  /** A new parser process: no permission flag, its own heap limit, its bundle the one file it runs. */
  #spawn(): Deno.ChildProcess {
    return new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        `--v8-flags=--max-old-space-size=${this.#limits.heapMiB}`,
        "--no-config",
        "--no-lock",
        PARSER_WORKER_URL.href,
      ],
      env: { NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  }

  /** Gives `slot` a new child; whatever an earlier one says is ignored. */
  #start(slot: Slot): void {
    killAtExit();
    let child: Deno.ChildProcess;
    try {
      child = this.#spawn();
    } catch (error) {
      // Such as no --allow-run for Deno itself: the job waiting on this slot says so.
      slot.child = undefined;
      slot.ready = Promise.reject(error);
      slot.ready.catch(() => {});
      return;
    }
    // A pool not closed does not keep Sync running: its children are killed as Sync exits.
    // While a child starts or parses, a timer (its deadline) keeps Sync waiting for it.
    child.unref();
    LIVE.add(child);
    slot.child = child;
    slot.killed = false;
    slot.stdin = child.stdin.getWriter();
    let ready!: () => void;
    let failed!: (error: Error) => void;
    slot.ready = new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = reject;
    });
    // A failed start is told to the job that awaits `ready`, never unhandled.
    slot.ready.catch(() => {});
    const mine = () => slot.child === child && !slot.killed;
    slot.starting = setTimeout(() => {
      if (!mine()) return;
      failed(new Error(`it did not start within ${this.#limits.jobTimeoutMs} ms`));
      this.#replace(slot);
    }, this.#limits.jobTimeoutMs);
    (async () => {
      for await (const frame of readFrames(child.stdout)) {
        if (!mine()) continue;
        const message = frame as FromParserWorker;
        if (message.type === "ready") {
          clearTimeout(slot.starting);
          ready();
        } else if (slot.active?.jobId === message.jobId) slot.active.settle(message.result);
      }
    })().catch(() => {});
    // Its stderr is read to its end, so a child never blocks on it, and its last words kept.
    let said = "";
    const drained = (async () => {
      for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
        said = (said + text).slice(-STDERR_CHARS);
      }
    })().catch(() => {});
    child.status.then(async (status) => {
      LIVE.delete(child);
      if (!mine()) return;
      // What V8 wrote as it ended is needed to tell memory from a failure.
      let wait: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([drained, new Promise((resolve) => wait = setTimeout(resolve, 1_000))]);
      clearTimeout(wait);
      if (!mine()) return;
      const why = this.#endOf(said, status);
      failed(new Error(why));
      slot.active?.settle({ ok: false, reason: why });
      this.#replace(slot);
    });
  }

  /** Why a child ended by itself, in words. */
  #endOf(said: string, status: Deno.CommandStatus): string {
    if (/out of memory|heap limit/i.test(said)) {
      return `the parser ran out of memory on it (${this.#limits.heapMiB} MiB) and was stopped`;
    }
    const how = status.signal ? `signal ${status.signal}` : `code ${status.code}`;
    const last = said.trim().split("\n").at(-1)?.slice(0, 300) ?? "";
    return `the parser failed on it: it ended with ${how}${last ? `: ${last}` : ""}`;
  }

  /** Kills `slot`'s child; what it says after is ignored. */
  #kill(slot: Slot): void {
    clearTimeout(slot.starting);
    slot.killed = true;
    if (!slot.child) return;
    killChild(slot.child);
    slot.stdin.close().catch(() => {});
  }

  #replace(slot: Slot): void {
    this.#kill(slot);
    slot.active = undefined;
    this.#replaced++;
    if (!this.#closed) this.#start(slot);
  }
}

/** What a child holds a parse to. */
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
