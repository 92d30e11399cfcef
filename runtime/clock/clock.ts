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
 * @module
 */
import {
  type Approval,
  approvalsPrefix,
  type LoadedPackage,
  loadPackage,
  type PackageRef,
  packagesChangedKey,
  parseEvery,
  readPackageRef,
  servingPackage,
} from "../packages/mod.ts";
import { holdClockLease, readClockLease, releaseClockLease } from "./lease.ts";
import { isSwitchedOff } from "./switch.ts";
import {
  clockChangedKey,
  clockOffsPrefix,
  scheduleSkipsPrefix,
  scheduleStampsPrefix,
} from "./keys.ts";
import { ApprovalRequiredError, HandlerBusyError, NotFoundError, SyncError } from "../errors.ts";
import { readGeneration } from "../memory/mod.ts";
import { type HandlerCaller, isRefusal, writeReceipt } from "../host/mod.ts";
import {
  type ProjectInfo,
  projectKey,
  projectsChangedKey,
  projectsPrefix,
} from "../projects/mod.ts";
import { listScheduledProjects } from "./scheduled_projects.ts";
import {
  beginAttempt,
  clearSkip,
  endAttempt,
  markSkip,
  type ScheduleStamp,
  type SkipMark,
  takeBackAttempt,
} from "./stamps.ts";
import { describeError } from "../internal/describe_error.ts";
import { newId } from "../internal/id.ts";
import type { EventSink } from "../sync_event.ts";
import type { Receipt } from "../types.ts";
import { printable } from "../internal/printable.ts";
import { isFolder } from "../internal/is_folder.ts";

/** How often the clock looks: once a minute, the shortest interval a manifest can ask for. */
export const LOOK_EVERY_MS = 60_000;

/**
 * How early a handler may be found due, as a share of the look interval.
 * Looks come round a little late or early; without this, a `1m` handler
 * stamped at one look and found a millisecond short at the next would run
 * every two minutes.
 */
const DUE_TOLERANCE = 0.5;

/** Why the clock passed something over. */
export type SkipReason =
  /** A person switched the package's clock off in this project. */
  | "switched-off"
  /** Nothing approved can serve the package in this project. */
  | "not-approved"
  /** The package is no longer installed in the project, or its artefact is gone. */
  | "not-installed"
  /** The project folder is gone; the project stays on the scheduled list. */
  | "project-gone"
  /** The project is on the list but this installation never opened it. */
  | "not-opened"
  /** Anything else that stopped the package from serving (a broken manifest, say). */
  | "unavailable"
  /** The handler was already running (a person's call, say); tried again at the next look. */
  | "busy";

/** One handler the clock called in a tick. */
export interface TickRun {
  /** The project's resolved folder. */
  project: string;
  /** The package whose handler it called. */
  packageId: string;
  /** The handler, such as `issues.poll`. */
  handler: string;
  /** How the attempt ended. */
  outcome: "ok" | "failed";
  /** `{ name, message }` when it failed. */
  error?: { name: string; message: string };
  /** How long past due it was, in ms; null when it had never run. */
  overdueMs: number | null;
}

/** Something the clock passed over in a tick, and why. */
export interface TickSkip {
  /** The project's folder, as the scheduled-projects list holds it. */
  project: string;
  /** Absent when the whole project was passed over. */
  packageId?: string;
  /** Absent when the whole package (or project) was passed over. */
  handler?: string;
  /** Why, as a code a program can test. */
  reason: SkipReason;
  /** Why, in words a person reads. */
  message: string;
}

/** What one look of the clock did. */
export interface TickReport {
  /** When the clock looked. */
  at: string;
  /** The handlers it called, in the order it called them. */
  ran: TickRun[];
  /** What it passed over, and why. */
  skipped: TickSkip[];
  /**
   * Set when another process holds the installation's clock, so this one
   * looked at nothing: "one handler at a time for the machine" needs one clock.
   */
  elsewhere?: string;
}

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

/** Reads one tick shares across projects: each artefact and each ref is read once. */
interface TickReads {
  load: (ref: PackageRef) => Promise<LoadedPackage>;
  ref: (id: string) => Promise<PackageRef | null>;
  /**
   * What the installation holds per project, read at the start of the tick
   * with one listing each rather than several reads per project.
   */
  byProject: {
    projects: Map<string, ProjectInfo>;
    marks: Map<string, Map<string, SkipMark>>;
    stamps: Map<string, Map<string, ScheduleStamp>>;
    approvals: Map<string, Map<string, Approval>>;
    offs: Map<string, Map<string, unknown>>;
  };
  /** Whether a package that cannot serve would have had anything to run. */
  mayBeScheduled: (id: string) => Promise<boolean>;
}

/** A handler found due in a look. */
interface DueEntry {
  project: string;
  id: string;
  handler: string;
  /** Ms past due; Infinity for a handler that never ran. */
  overdue: number;
  /** Position in which it was found, so ties keep a stable order. */
  order: number;
  /** A skip was marked for it, to clear once it runs. */
  marked: boolean;
  /** The ids remembered when the project was last opened. */
  declaredIds: readonly string[];
  /** The stamp seen when the clock looked; null when it never ran. */
  previous: ScheduleStamp | null;
}

/**
 * What the clock keeps between looks so that a look over many projects reads
 * only those that may have something to do. It holds for as long as the
 * installation's change keys have not moved (every writer of the scheduled
 * list, the switch, approvals, refs and remembered projects moves one) and
 * every serving artefact's manifest reads the same. The clock's own stamps
 * and skip marks do not move them: a stamp only ever moves later, so one kept
 * from before can only make a project looked at sooner than needed, and a
 * project the clock ran or passed over something in is looked at in full at
 * the next look anyway.
 */
interface TickIndex {
  /** The change keys' versionstamps when it was made. */
  versions: string;
  /** The scheduled list, in its order. */
  order: string[];
  /** Each id's serving artefact and its manifest as JSON, when it was made. */
  artefacts: Map<string, { ref: PackageRef; manifest: string }>;
  /**
   * Per project, the time before which a look finds nothing to do there; -Infinity
   * for a project looked at in full every time (something ran or was passed over).
   */
  quietUntil: Map<string, number>;
}

/**
 * Projects a look reads one by one, at most; past it the look reads the whole
 * installation with one listing per kind, which is cheaper for many.
 */
const READ_ONE_BY_ONE = 64;

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
    const reads: TickReads = {
      byProject: emptyByProject(),
      load: memoize((ref: PackageRef) => `${ref.dir}\0${ref.id}`, loadPackage),
      ref: memoize((id: string) => id, (id) => readPackageRef(this.#host.kv, id)),
      mayBeScheduled: memoize((id: string) => id, (id) => this.#mayBeScheduled(id, reads)),
    };
    const versions = await readChangeVersions(kv);
    const kept = await this.#stillHolds(this.#index, versions, reads);
    let looked: string[];
    if (kept) {
      looked = [];
      for (const path of kept.order) {
        // A project with nothing due is passed over, once its folder is seen still there.
        if ((kept.quietUntil.get(path) ?? -Infinity) > at && await isFolder(path)) continue;
        looked.push(path);
      }
      reads.byProject = looked.length <= READ_ONE_BY_ONE
        ? await readProjects(kv, looked)
        : await readByProject(kv);
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
        quiet = await this.#collect(path, at, due, report, reads);
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
      this.#index = await this.#newIndex(versions, looked, quietUntil, reads);
    }
    due.sort((a, b) =>
      a.overdue === b.overdue ? a.order - b.order : b.overdue > a.overdue ? 1 : -1
    );
    for (const entry of due) {
      if (this.#stopping) break;
      // A tick longer than the lease must not run on once another process took the clock.
      if (!await this.#holdLease()) break;
      await this.#run(entry, at, report);
    }
    return report;
  }

  /**
   * Adds what is due in one project to `due`, and passes over what cannot
   * run. Answers the time before which nothing in the project comes due, as
   * its stamps and schedules stand.
   */
  async #collect(
    project: string,
    at: number,
    due: DueEntry[],
    report: TickReport,
    reads: TickReads,
  ): Promise<number> {
    let quietUntil = Infinity;
    const marks = reads.byProject.marks.get(project) ?? new Map<string, SkipMark>();
    const info = reads.byProject.projects.get(project);
    if (!info) {
      await this.#skip(report, marks, { project }, "not-opened", {
        message: `${project} is on the scheduled list but was never opened here; open it to tick`,
        receipt: false,
      });
      return -Infinity;
    }
    if (!await isFolder(project)) {
      // A memory still open would be a deleted file: let go of it, so a
      // folder made again at the path is read afresh.
      await this.#host.forgetProject(project);
      const scheduled = [];
      for (const id of info.extensionIds) if (await reads.mayBeScheduled(id)) scheduled.push(id);
      await this.#skip(report, marks, { project }, "project-gone", {
        message: `the project folder ${project} is gone; it stays on the scheduled list ` +
          `until a person removes it (sync projects forget ${project})`,
        receipt: true,
        receiptIds: scheduled,
      });
      return -Infinity;
    }
    await this.#unmark(marks, { project });
    const stamps = reads.byProject.stamps.get(project) ?? new Map<string, ScheduleStamp>();
    const approvals = reads.byProject.approvals.get(project);
    const offs = reads.byProject.offs.get(project);
    const ids = info.extensionIds;
    for (const id of ids) {
      let schedule;
      try {
        schedule = (await servingPackage(this.#host.kv, project, id, {
          declaredIds: ids,
          load: reads.load,
          approval: approvals?.get(id) ?? null,
          ref: await reads.ref(id),
        })).manifest.schedule;
      } catch (error) {
        if (await reads.mayBeScheduled(id)) {
          await this.#skip(report, marks, { project, id }, skipReasonOf(error), {
            message: describeError(error).message,
            receipt: true,
          });
        }
        continue;
      }
      await this.#unmark(marks, { project, id });
      if (schedule.length === 0) continue;
      const off = offs?.has(id) ?? false;
      const seen = new Set<string>();
      for (const row of schedule) {
        if (seen.has(row.handler)) continue;
        seen.add(row.handler);
        const stamp = stamps.get(`${id}\0${row.handler}`) ?? null;
        const overdue = stamp ? at - stamp.at - parseEvery(row.every) : Infinity;
        const dueFrom = stamp
          ? stamp.at + parseEvery(row.every) - LOOK_EVERY_MS * DUE_TOLERANCE
          : -Infinity;
        quietUntil = Math.min(quietUntil, dueFrom);
        if (overdue < -LOOK_EVERY_MS * DUE_TOLERANCE) continue;
        const key = { project, id, handler: row.handler };
        if (off) {
          await this.#skip(report, marks, key, "switched-off", {
            message: `the clock of ${id} is switched off in ${project}`,
            receipt: true,
          });
          continue;
        }
        const marked = marks.has(`${id}\0${row.handler}`);
        due.push({
          ...key,
          overdue,
          order: due.length,
          marked,
          declaredIds: info.extensionIds,
          previous: stamp,
        });
      }
    }
    return quietUntil;
  }

  /**
   * `index` when it still holds: no change key moved since it was made, and
   * every serving artefact's manifest reads as it did then.
   */
  async #stillHolds(
    index: TickIndex | undefined,
    versions: string,
    reads: TickReads,
  ): Promise<TickIndex | undefined> {
    if (!index || index.versions !== versions) return undefined;
    for (const { ref, manifest } of index.artefacts.values()) {
      try {
        if (JSON.stringify((await reads.load(ref)).manifest) !== manifest) return undefined;
      } catch {
        return undefined;
      }
    }
    return index;
  }

  /** The index a look over every scheduled project leaves for the next. */
  async #newIndex(
    versions: string,
    order: string[],
    quietUntil: Map<string, number>,
    reads: TickReads,
  ): Promise<TickIndex> {
    const artefacts = new Map<string, { ref: PackageRef; manifest: string }>();
    const ids = new Set<string>();
    for (const info of reads.byProject.projects.values()) {
      for (const id of info.extensionIds) ids.add(id);
    }
    for (const id of ids) {
      const ref = await reads.ref(id);
      if (!ref) continue;
      try {
        artefacts.set(id, { ref, manifest: JSON.stringify((await reads.load(ref)).manifest) });
      } catch {
        // An artefact that cannot be read now is noticed when it can: the project
        // it serves was passed over, so it is looked at in full every time.
      }
    }
    return { versions, order, artefacts, quietUntil };
  }

  /** Calls one due handler, stamping the attempt before it starts. */
  async #run(entry: DueEntry, at: number, report: TickReport): Promise<void> {
    const kv = this.#host.kv;
    const { project, id, handler } = entry;
    // The generation is read before the switch: switching off writes the
    // exception and then bumps the generation, so a switch turned off after
    // this look fences the call off at commit.
    const generation = await readGeneration(await this.#host.projectMemory(project), id);
    // The switch may have been turned off while earlier handlers ran.
    if (await isSwitchedOff(kv, project, id)) {
      await this.#skip(report, new Map(), { project, id, handler }, "switched-off", {
        message: `the clock of ${id} is switched off in ${project}`,
        receipt: true,
      });
      return;
    }
    // Removed from the project since the look: nothing to run.
    const remembered = await kv.get<ProjectInfo>(projectKey(project));
    if (!remembered.value?.extensionIds.includes(id)) return;
    const begun = await beginAttempt(kv, project, id, handler, {
      at,
      startedAt: this.#now(),
      previousAt: entry.previous?.at ?? null,
      guard: remembered,
    });
    if (!begun) {
      this.#log(
        `[${id}] ${handler} in ${project} was already attempted by another clock; passed over`,
      );
      return;
    }
    if (entry.marked) await clearSkip(kv, { project, id, handler });
    const overdueMs = entry.overdue === Infinity ? null : Math.max(0, entry.overdue);
    try {
      await this.#host.callHandler(project, id, handler, {
        occasion: { kind: "clock" },
        source: { kind: "clock" },
        generation,
        declaredIds: entry.declaredIds,
        noReceiptWhenBusy: true,
      });
      await endAttempt(kv, project, id, handler, begun, { outcome: "ok", endedAt: this.#now() });
      report.ran.push({ project, packageId: id, handler, outcome: "ok", overdueMs });
    } catch (error) {
      const shown = describeError(error);
      if (error instanceof HandlerBusyError) {
        // A person's call of the same handler is running: this attempt never
        // started, so it must not make the handler wait a whole interval.
        await takeBackAttempt(kv, project, id, handler, begun, entry.previous);
        const message = `${handler} is running already (called by a person or another ` +
          `package); the clock tries again at its next look`;
        this.#log(`[${id}] ${message} (${project})`);
        await this.#skipReceipt(project, id, handler, "busy", message);
        report.skipped.push({ project, packageId: id, handler, reason: "busy", message });
        return;
      }
      await endAttempt(kv, project, id, handler, begun, {
        outcome: "failed",
        endedAt: this.#now(),
        error: shown,
        counts: !notTheHandlersFault(error),
      });
      // Reported once per attempt, and the stamp keeps it quiet until its interval.
      this.#log(
        `[${id}] ${handler} failed on the clock in ${project}: ${shown.message}`,
      );
      report.ran.push({
        project,
        packageId: id,
        handler,
        outcome: "failed",
        error: shown,
        overdueMs,
      });
    }
  }

  /**
   * Records a skip in the report, and reports it once — a receipt, or a log
   * line for what no package owns — when it starts or its reason changes.
   */
  async #skip(
    report: TickReport,
    marks: Map<string, SkipMark>,
    key: { project: string; id?: string; handler?: string },
    reason: SkipReason,
    what: { message: string; receipt: boolean; receiptIds?: readonly string[] },
  ): Promise<void> {
    const { project, id, handler } = key;
    report.skipped.push({
      project,
      ...(id ? { packageId: id } : {}),
      ...(handler ? { handler } : {}),
      reason,
      message: what.message,
    });
    const now = this.#now();
    const known = marks.get(`${id ?? ""}\0${handler ?? ""}`);
    if (known?.reason === reason) return;
    if (!await markSkip(this.#host.kv, key, { reason, at: now })) return;
    this.#log(
      `[${id ?? "clock"}] skipped ${handler ?? ""}${
        handler ? " " : ""
      }(${reason}): ${what.message}`,
    );
    if (!what.receipt) return;
    for (const packageId of id ? [id] : what.receiptIds ?? []) {
      await this.#skipReceipt(project, packageId, handler, reason, what.message);
    }
  }

  /** A receipt for an attempt the clock passed over. */
  async #skipReceipt(
    project: string,
    packageId: string,
    handler: string | undefined,
    reason: SkipReason,
    message: string,
  ): Promise<void> {
    const now = this.#now();
    const stamp = new Date(now).toISOString();
    const receipt: Receipt = {
      id: newId(now),
      project,
      packageId,
      // Empty when the whole package was passed over before its handlers were known.
      handler: handler ?? "",
      occasion: { kind: "clock" },
      startedAt: stamp,
      endedAt: stamp,
      outcome: "skipped",
      error: { name: reason, message },
    };
    await writeReceipt(this.#host.kv, receipt);
    this.#host.events?.publish({ type: "receipt", project, packageId, receipt });
  }

  async #unmark(
    marks: Map<string, SkipMark>,
    key: { project: string; id?: string; handler?: string },
  ): Promise<void> {
    if (marks.has(`${key.id ?? ""}\0${key.handler ?? ""}`)) await clearSkip(this.#host.kv, key);
  }

  /**
   * Whether a package that cannot serve would have had anything to run: its
   * current artefact declares a schedule, or nothing of it can be read any
   * more. A package without a schedule is not the clock's to report on.
   */
  async #mayBeScheduled(id: string, reads: TickReads): Promise<boolean> {
    const ref = await reads.ref(id);
    if (!ref) return true;
    try {
      return (await reads.load(ref)).manifest.schedule.length > 0;
    } catch {
      return true;
    }
  }
}

/** The skip reason for an error from resolving which package serves. */
export function skipReasonOf(error: unknown): SkipReason {
  if (error instanceof ApprovalRequiredError) return "not-approved";
  if (error instanceof NotFoundError) return "not-installed";
  return "unavailable";
}

/**
 * Failures that say nothing about the package: a person fenced the call off
 * (switched the clock off, updated or removed the package, took back its
 * approval) between the look and the call, or was running the same handler,
 * or ran it so often the rate limit refused the clock.
 */
function notTheHandlersFault(error: unknown): boolean {
  return error instanceof SyncError && isRefusal(error.name);
}

/** `f`, called once per key; later calls with the same key share the first promise. */
function memoize<A, R>(
  keyOf: (arg: A) => string,
  f: (arg: A) => Promise<R>,
): (arg: A) => Promise<R> {
  const seen = new Map<string, Promise<R>>();
  return (arg) => {
    const key = keyOf(arg);
    let result = seen.get(key);
    if (!result) {
      result = f(arg);
      seen.set(key, result);
    }
    return result;
  };
}

/**
 * The change keys' versionstamps, in one read: equal to an earlier answer
 * when nothing the clock keeps in memory has been written since.
 */
async function readChangeVersions(kv: Deno.Kv): Promise<string> {
  const entries = await kv.getMany([clockChangedKey(), packagesChangedKey(), projectsChangedKey()]);
  return entries.map((entry) => entry.versionstamp ?? "").join("/");
}

function emptyByProject(): TickReads["byProject"] {
  return {
    projects: new Map(),
    marks: new Map(),
    stamps: new Map(),
    approvals: new Map(),
    offs: new Map(),
  };
}

/** What a tick reads of a few projects, project by project. */
async function readProjects(kv: Deno.Kv, paths: string[]): Promise<TickReads["byProject"]> {
  const out = emptyByProject();
  await Promise.all(paths.map(async (path) => {
    const [info, marks, stamps, approvals, offs] = await Promise.all([
      kv.get<ProjectInfo>(projectKey(path)),
      listOfProject<SkipMark>(kv, scheduleSkipsPrefix(path)),
      listOfProject<ScheduleStamp>(kv, scheduleStampsPrefix(path)),
      listOfProject<Approval>(kv, approvalsPrefix(path)),
      listOfProject<unknown>(kv, clockOffsPrefix(path)),
    ]);
    if (info.value) out.projects.set(path, info.value);
    out.marks.set(path, marks);
    out.stamps.set(path, stamps);
    out.approvals.set(path, approvals);
    out.offs.set(path, offs);
  }));
  return out;
}

/** Every entry under one project's `prefix`, by the rest of its key joined with NUL. */
async function listOfProject<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  for await (const entry of kv.list<T>({ prefix })) {
    out.set((entry.key.slice(prefix.length) as string[]).join("\0"), entry.value);
  }
  return out;
}

/** What a tick reads of every project, with one listing of each prefix, all at once. */
async function readByProject(kv: Deno.Kv): Promise<TickReads["byProject"]> {
  const [projects, marks, stamps, approvals, offs] = await Promise.all([
    listByProject<ProjectInfo>(kv, projectsPrefix()),
    listByProject<SkipMark>(kv, scheduleSkipsPrefix()),
    listByProject<ScheduleStamp>(kv, scheduleStampsPrefix()),
    listByProject<Approval>(kv, approvalsPrefix()),
    listByProject<unknown>(kv, clockOffsPrefix()),
  ]);
  return {
    projects: new Map([...projects].map(([path, inner]) => [path, inner.get("")!])),
    marks,
    stamps,
    approvals,
    offs,
  };
}

/** Entries a listing reads per round trip: the most Deno KV allows. */
const LIST_BATCH = 1_000;

/**
 * Every entry under `prefix`, keyed `[...prefix, project, ...rest]`, by
 * project and then by the rest of the key joined with NUL (empty when there
 * is no rest): one listing, however many projects.
 */
async function listByProject<T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
): Promise<Map<string, Map<string, T>>> {
  const out = new Map<string, Map<string, T>>();
  for await (const entry of kv.list<T>({ prefix }, { batchSize: LIST_BATCH })) {
    const [project, ...rest] = entry.key.slice(prefix.length) as string[];
    let inner = out.get(project);
    if (!inner) out.set(project, inner = new Map());
    inner.set(rest.join("\0"), entry.value);
  }
  return out;
}
