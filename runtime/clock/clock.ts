/**
 * The clock: calls scheduled handlers on their intervals, for every project on
 * the scheduled list, whether or not any window is open.
 *
 * The rules it keeps (seed 000 §4):
 * - intervals, never cron; it looks once a minute, the shortest interval;
 * - one handler at a time for the whole machine, most overdue first, and a
 *   handler that never ran is the most overdue of all;
 * - the stamp records the attempt, not the success, so a failing handler
 *   waits its interval; lateness is not made up for, so a machine asleep for
 *   six hours runs an hourly handler once, not six times;
 * - it ticks with the extension ids remembered when each project was last
 *   opened, never reading a repository to find out what it declares, and
 *   resolves each manifest at tick time, so an updated package or an edited
 *   folder install is honoured at the next look;
 * - a package switched off in a project is skipped; every skip leaves one
 *   receipt (outcome "skipped") when it starts, not one every minute.
 *
 * This file is when the clock looks and the order of a look's steps: hold
 * the lease, read (`_tick_reads.ts`), pass over the projects the index kept
 * from the last look says are quiet (`_tick_index.ts`), find what is due in
 * each project (`_due_handlers.ts`), then run it, most overdue first
 * (`_run_attempt.ts`). What it passes over is reported once
 * (`_tick_skips.ts`); what a look answers is `tick_report.ts`.
 *
 * @module
 */
import { describeError } from "../internal/describe_error.ts";
import { printable } from "../internal/printable.ts";
import type { HandlerCaller } from "../host/mod.ts";
import type { EventSink } from "../sync_event.ts";
import { holdClockLease, readClockLease, releaseClockLease } from "./lease.ts";
import { listScheduledProjects } from "./scheduled_projects.ts";
import type { TickReport } from "./tick_report.ts";
import {
  collectDue,
  type CollectDueOptions,
  type DueEntry,
  LOOK_EVERY_MS,
  mostOverdueFirst,
} from "./_due_handlers.ts";
import { runAttempt, type RunAttemptOptions } from "./_run_attempt.ts";
import { indexStillHolds, newTickIndex, projectsToLook, type TickIndex } from "./_tick_index.ts";
import { readByProject, readChangeVersions, readLooked, tickReads } from "./_tick_reads.ts";
import { TickSkips } from "./_tick_skips.ts";

// The report a tick answers, for those who hold a clock and read what it did.
export type { SkipReason, TickReport, TickRun, TickSkip } from "./tick_report.ts";

/** What the clock needs of the host: the installation, project memories, and calls. */
export interface ClockHost extends HandlerCaller {
  /** The installation's KV: the scheduled list, stamps, skip marks, the clock lease. */
  readonly kv: Deno.Kv;
  /** The host's clock, in ms. */
  readonly now: () => number;
  /** The project's memory KV, where the package's generation is read before a call. */
  projectMemory(project: string): Promise<Deno.Kv>;
  /** Closes what the host holds open of a project whose folder is gone. */
  forgetProject(project: string): Promise<void>;
  /** Where the receipts the clock writes itself (skips) are told; nowhere when absent. */
  readonly events?: EventSink;
}

/** Options for {@linkcode Clock}. */
export interface ClockOptions {
  /** The clock's time; defaults to the host's. Tests pass a fake one. */
  now?: () => number;
  /** Where the clock's own lines go. */
  log?: (line: string) => void;
}

/** Options for {@linkcode Clock.start}. */
export interface StartOptions {
  /** Stops the clock when aborted, as {@linkcode Clock.stop} does. */
  signal?: AbortSignal;
}

/**
 * The clock. One per process: it is what keeps scheduled calls to one at a
 * time for the machine.
 */
export class Clock {
  #host: ClockHost;
  #now: () => number;
  #log: (line: string) => void;
  /** The last tick asked for; the next one waits for it, so ticks never overlap. */
  #queue: Promise<unknown> = Promise.resolve();
  #looking = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #signal: AbortSignal | undefined;
  #onAbort = () => void this.stop();
  /** This clock's name for itself in the installation's clock lease. */
  #holder = crypto.randomUUID();
  /** Another process held the clock at the last look (said once in the log). */
  #elsewhere = false;
  /** Set while stopping: the tick in progress calls nothing more. */
  #stopping = false;
  /** What the last look learnt, while it holds; see {@linkcode TickIndex}. */
  #index: TickIndex | undefined;
  /** What finding the due handlers of a project is given. */
  #collecting: CollectDueOptions;
  /** What running a due handler is given. */
  #attempting: RunAttemptOptions;

  /**
   * A clock over an installation; it looks only once started or ticked.
   *
   * @param host What the clock calls handlers with, and the installation it keeps.
   * @param options Its clock, log and pace, when not the host's.
   */
  constructor(host: ClockHost, options: ClockOptions = {}) {
    this.#host = host;
    this.#now = options.now ?? host.now;
    // One entry, one line: a message quoting a handler's error cannot start another.
    const log = options.log ?? ((line) => console.error(line));
    this.#log = (entry) => log(printable(entry));
    const skips = new TickSkips({
      kv: host.kv,
      now: this.#now,
      log: this.#log,
      events: host.events,
    });
    this.#collecting = {
      kv: host.kv,
      forgetProject: (project) => host.forgetProject(project),
      skips,
    };
    this.#attempting = {
      kv: host.kv,
      caller: host,
      projectMemory: (project) => host.projectMemory(project),
      now: this.#now,
      log: this.#log,
      skips,
    };
  }

  /** True between {@linkcode Clock.start} and {@linkcode Clock.stop}. */
  get running(): boolean {
    return this.#timer !== undefined;
  }

  /**
   * Looks once: finds what is due across every scheduled project and calls
   * it, one handler at a time, most overdue first. A tick asked for while
   * another runs waits for it.
   *
   * @returns What the look did: what it called, what it passed over and why,
   *   or that another process holds the clock.
   */
  tick(): Promise<TickReport> {
    const next = this.#queue.then(() => this.#tick());
    this.#queue = next.catch(() => {});
    return next;
  }

  /**
   * Looks now and then once a minute until stopped. A look that comes round
   * while the previous one is still running is passed over rather than
   * queued, so a slow tick never piles up behind itself. Starting a running
   * clock does nothing.
   *
   * @param options A signal that stops the clock when aborted.
   */
  start(options: StartOptions = {}): void {
    if (this.#timer !== undefined) return;
    if (options.signal?.aborted) return;
    this.#signal = options.signal;
    this.#signal?.addEventListener("abort", this.#onAbort, { once: true });
    this.#timer = setInterval(() => this.#look(), LOOK_EVERY_MS);
    this.#look();
  }

  /**
   * Stops looking. A tick in progress finishes the handler it is running and
   * calls nothing more; this waits for that, then lets go of the clock lease.
   */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#signal = undefined;
    this.#stopping = true;
    try {
      await this.#queue;
    } finally {
      this.#stopping = false;
    }
    await releaseClockLease(this.#host.kv, this.#holder);
  }

  /** Takes or renews the installation's clock lease for three looks. */
  #holdLease(): Promise<boolean> {
    return holdClockLease(this.#host.kv, this.#holder, {
      now: this.#now(),
      forMs: 3 * LOOK_EVERY_MS,
    });
  }

  #look(): void {
    if (this.#looking) return;
    this.#looking = true;
    this.tick()
      .catch((error) => this.#log(`[clock] a tick failed: ${describeError(error).message}`))
      .finally(() => this.#looking = false);
  }

  async #tick(): Promise<TickReport> {
    const at = this.#now();
    const report: TickReport = { at: new Date(at).toISOString(), ran: [], skipped: [] };
    if (!await this.#holdLease()) {
      const lease = await readClockLease(this.#host.kv);
      report.elsewhere = `another Sync process runs the clock for this installation` +
        (lease ? ` (until ${new Date(lease.until).toISOString()} unless it renews)` : "");
      if (!this.#elsewhere) this.#log(`[clock] ${report.elsewhere}; this one waits`);
      this.#elsewhere = true;
      this.#index = undefined;
      return report;
    }
    if (this.#elsewhere) this.#log(`[clock] this process runs the clock now`);
    this.#elsewhere = false;
    const due: DueEntry[] = [];
    // Each artefact is read once per tick, at tick time, however many projects it serves.
    const kv = this.#host.kv;
    const reads = tickReads(kv);
    const versions = await readChangeVersions(kv);
    const kept = await indexStillHolds(this.#index, versions, reads);
    let looked: string[];
    if (kept) {
      looked = await projectsToLook(kept, at);
      reads.byProject = await readLooked(kv, looked);
    } else {
      this.#index = undefined;
      reads.byProject = await readByProject(kv);
      looked = (await listScheduledProjects(kv)).map(({ path }) => path);
    }
    const quietUntil = new Map<string, number>();
    for (const path of looked) {
      const skippedBefore = report.skipped.length;
      const dueBefore = due.length;
      let quiet = -Infinity;
      try {
        quiet = await collectDue(path, at, due, report, reads, this.#collecting);
      } catch (error) {
        // One project that cannot be read must not stop the others ticking.
        const { message } = describeError(error);
        report.skipped.push({ project: path, reason: "unavailable", message });
        this.#log(`[clock] ${path}: ${message}`);
      }
      const busy = report.skipped.length > skippedBefore || due.length > dueBefore;
      quietUntil.set(path, busy ? -Infinity : quiet);
    }
    if (kept) {
      for (const [path, quiet] of quietUntil) kept.quietUntil.set(path, quiet);
    } else {
      this.#index = await newTickIndex(versions, looked, quietUntil, reads);
    }
    mostOverdueFirst(due);
    for (const entry of due) {
      if (this.#stopping) break;
      // A tick longer than the lease must not run on once another process took the clock.
      if (!await this.#holdLease()) break;
      await runAttempt(entry, at, report, this.#attempting);
    }
    return report;
  }
}
