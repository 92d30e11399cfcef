/**
 * One process the supervisor started, in a process group of its own.
 *
 * @module
 */
import { ByteTail } from "./byte_tail.ts";
import { groupAlive } from "./process_table.ts";
import { signalGroup } from "./signal_group.ts";
import { textLines } from "./text_lines.ts";

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  /** The exit code; 128 + the signal's number when a signal ended it. */
  code: number;
  /** The signal that ended it, or `null` when it exited by itself. */
  signal: Deno.Signal | null;
}

/** What a {@linkcode SupervisedProcess} is made with, besides the child itself. */
export interface SupervisedProcessOptions {
  /** Who started it. */
  owner: string;
  /** The program as it was asked for (`codex-acp`). */
  command: string;
  /** The program's path, as found. */
  program: string;
  /** Its arguments. */
  args: readonly string[];
  /** The folder it started in. */
  cwd: string;
  /** When it was started, as an ISO 8601 time. */
  startedAt: string;
  /** Bytes of stderr kept. */
  stderrTailBytes: number;
  /** Time the group has after SIGTERM before SIGKILL, in ms. */
  stopGraceMs: number;
  /** Called with each piece of stderr as text; what it throws is ignored. */
  onStderr?: (text: string) => void;
  /** Called once, when the whole group has gone. */
  onGone?: (process: SupervisedProcess) => void;
}

/** How often a group that was signalled is looked at, in ms. */
const POLL_MS = 100;
/** How long stderr is read after the group has gone, for a helper that left the group and holds it. */
const STDERR_AFTER_GONE_MS = 1_000;
/** How long a group is watched after SIGKILL: a process the system cannot kill is not waited for. */
const AFTER_KILL_MS = 5_000;

/**
 * A running program and its process group, as {@linkcode Supervisor.spawn}
 * answers it.
 *
 * Its stdout is for one reader: `stdout` as bytes (an NDJSON peer such as an
 * ACP connection), or `text()` or `lines()`; whoever starts a process reads
 * its stdout to the end or cancels it, since a program whose output is not
 * read stops when the pipe is full. stderr is read by the process itself:
 * the end of it is kept ({@linkcode SupervisedProcess.stderrTail}) and each
 * piece goes to `onStderr`.
 *
 * When the program exits, whatever is left of its group (helpers it
 * started) is stopped the same way as by {@linkcode SupervisedProcess.stop}.
 * A program that closes its stdout and stderr but keeps running is left
 * running.
 */
export class SupervisedProcess {
  /** The program's pid, which is also its process group's id. */
  readonly pid: number;
  /** Who started it. */
  readonly owner: string;
  /** The program as it was asked for. */
  readonly command: string;
  /** The program's path, as found. */
  readonly program: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** The folder it started in. */
  readonly cwd: string;
  /** When it was started, as an ISO 8601 time. */
  readonly startedAt: string;
  /**
   * Its stdin, for a writer that holds it (an NDJSON peer). Use either this
   * or {@linkcode SupervisedProcess.write} and {@linkcode SupervisedProcess.end}:
   * while a writer holds the stream, they fail.
   */
  readonly stdin: WritableStream<Uint8Array>;
  /** Its stdout as bytes, as they arrive. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Resolves when the program has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  /**
   * Resolves when the program has exited and nothing of its group is left;
   * by then the stderr tail is complete.
   */
  readonly gone: Promise<ProcessExit>;
  #tail: ByteTail;
  #graceMs: number;
  #exit: ProcessExit | undefined;
  #termSentAt: number | undefined;
  #writing: Promise<void> = Promise.resolve();
  #onGone: ((process: SupervisedProcess) => void) | undefined;

  /**
   * Takes charge of a child that was started in a process group of its own
   * (`detached`), with stdin, stdout and stderr piped.
   *
   * @param child The child, whose pid is its group's id.
   * @param options What it is, its limits and who hears of it.
   */
  constructor(child: Deno.ChildProcess, options: SupervisedProcessOptions) {
    this.pid = child.pid;
    this.owner = options.owner;
    this.command = options.command;
    this.program = options.program;
    this.args = [...options.args];
    this.cwd = options.cwd;
    this.startedAt = options.startedAt;
    this.stdin = child.stdin;
    this.stdout = child.stdout;
    this.#tail = new ByteTail(options.stderrTailBytes);
    this.#graceMs = options.stopGraceMs;
    this.#onGone = options.onGone;
    this.exited = child.status.then((status) => {
      this.#exit = { code: status.code, signal: status.signal };
      return this.#exit;
    });
    const stderr = child.stderr.getReader();
    const reading = this.#readStderr(stderr, options.onStderr);
    this.gone = this.#reap(stderr, reading);
  }

  /** True until the program has exited. */
  get running(): boolean {
    return this.#exit === undefined;
  }

  /** How the program ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /**
   * The end of what the program wrote to stderr (at most the limit's bytes),
   * as text; complete once {@linkcode SupervisedProcess.gone} has resolved.
   */
  stderrTail(): string {
    return this.#tail.text();
  }

  /**
   * Writes to the program's stdin, after any write before it.
   *
   * @param data Text (written as UTF-8) or bytes.
   * @throws {TypeError} when a writer holds `stdin`.
   * @throws {Deno.errors.BrokenPipe} when the program no longer reads its stdin.
   */
  write(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    return this.#withWriter((writer) => writer.write(bytes));
  }

  /**
   * Closes the program's stdin, after the writes before it: the program reads
   * the end of its input.
   *
   * @throws {TypeError} when a writer holds `stdin`.
   */
  end(): Promise<void> {
    return this.#withWriter((writer) => writer.close());
  }

  /** Its stdout as text, decoded as UTF-8 with a character split across reads kept whole. */
  text(): ReadableStream<string> {
    // Typed as a plain transform: the browser app's type check (`deno check ui/`) reaches this
    // file through the API's types with the DOM's library, whose decoder stream's types differ.
    const decoder = new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>;
    return this.stdout.pipeThrough(decoder);
  }

  /** Its stdout as text, line by line (see {@linkcode SupervisedProcess.text}). */
  lines(): AsyncGenerator<string> {
    return textLines(this.text());
  }

  /**
   * Stops the program and its group: SIGTERM to the group, then SIGKILL to
   * whatever of it is left once the grace time has passed. Resolves when
   * nothing of the group is left. Calling it again, or after the program
   * exited, waits for the same end.
   */
  async stop(): Promise<ProcessExit> {
    if (this.#exit === undefined) {
      this.#terminate();
      const left = this.#termSentAt! + this.#graceMs - Date.now();
      if (!(await settlesWithin(this.exited, left))) signalGroup(this.pid, "SIGKILL");
    }
    return await this.gone;
  }

  /**
   * Sends SIGKILL to the group at once, synchronously: for the moment Sync
   * exits, when nothing asynchronous runs any more.
   */
  killNow(): void {
    signalGroup(this.pid, "SIGKILL");
  }

  /** SIGTERM to the group, once. */
  #terminate(): void {
    if (this.#termSentAt !== undefined) return;
    this.#termSentAt = Date.now();
    signalGroup(this.pid, "SIGTERM");
  }

  async #withWriter(
    use: (writer: WritableStreamDefaultWriter<Uint8Array>) => Promise<void>,
  ): Promise<void> {
    const run = this.#writing.then(async () => {
      const writer = this.stdin.getWriter();
      try {
        await use(writer);
      } finally {
        writer.releaseLock();
      }
    });
    this.#writing = run.catch(() => {});
    return await run;
  }

  async #readStderr(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    onStderr: ((text: string) => void) | undefined,
  ): Promise<void> {
    const decoder = new TextDecoder();
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#tail.add(value);
        if (!onStderr) continue;
        const text = decoder.decode(value, { stream: true });
        try {
          if (text) onStderr(text);
        } catch { /* a listener that throws must not stop the reading, or the program blocks */ }
      }
    } catch { /* cancelled once the group has gone */ }
  }

  /** Waits for the program's exit, stops what is left of its group, and reports it gone. */
  async #reap(
    stderr: ReadableStreamDefaultReader<Uint8Array>,
    reading: Promise<void>,
  ): Promise<ProcessExit> {
    const exit = await this.exited;
    try {
      await this.#clearGroup();
    } catch { /* ps failed: the group was signalled as far as it could be seen */ }
    if (!(await settlesWithin(reading, STDERR_AFTER_GONE_MS))) {
      await stderr.cancel().catch(() => {});
    }
    if (!this.stdin.locked) await this.stdin.close().catch(() => {/* the pipe had broken */});
    this.#onGone?.(this);
    return exit;
  }

  /** Stops whatever is left of the group once the program has exited. */
  async #clearGroup(): Promise<void> {
    if (!(await groupAlive(this.pid))) return;
    this.#terminate();
    while (Date.now() < this.#termSentAt! + this.#graceMs) {
      await sleep(POLL_MS);
      if (!(await groupAlive(this.pid))) return;
    }
    signalGroup(this.pid, "SIGKILL");
    const until = Date.now() + AFTER_KILL_MS;
    while (Date.now() < until && await groupAlive(this.pid)) await sleep(POLL_MS);
  }
}

/** True when `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms`. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
