/**
 * The task runner: runs devices' tasks while Sync runs, started by `serve`
 * beside the clock, and is what a person's decisions about a device go
 * through (connect, disconnect, reset, pause, resume, run, review), so that
 * a decision stops a run it makes obsolete at once.
 *
 * The rules it keeps (seed 002):
 * - modes: `scheduled` runs each task on its `every`, with no catch-up after
 *   sleep (an overdue task runs once, then waits its interval from then);
 *   `observation` watches the folder account (`Deno.watchFs`) and brings the
 *   next run forward after 2 s of quiet; `on-demand` runs when a person or
 *   an agent asks (`runTask`); `website` runs nothing;
 * - admission: one background step at a time in the process, each yielding
 *   first so foreground calls go before it;
 * - retries: a transient failure (by the error's name: `TransientError`, a
 *   timeout, the network, a busy handler) is retried after 30 s, 2 min and
 *   10 min, each an attempt of its own with trigger `retry`; then the task
 *   waits for its next due run, its lamp unchanged;
 * - a person must act on: `AccountAccessError` (red, allow access),
 *   `SignInError` (red, sign in), any other failure (red, review the run);
 *   `UnknownOutcomeError` parks the task until a person reviews it, and it is
 *   never resubmitted;
 * - an account changed, disconnected or reset fences a run going: it is
 *   called off, and its commit is refused by the account epoch;
 * - a paused device keeps its content and runs nothing.
 *
 * Each rule has its own file beside this one; the runner ties them together:
 * the schedule of due runs (`_run_due_tasks.ts`, looked at by
 * `_look_loop.ts`), observation (`_folder_watches.ts`), the plans a decision
 * makes (`_task_plans.ts`), admission (`_admission.ts`), what one attempt
 * does (`_run_task_attempt.ts`) and what its end means (`_settle_attempt.ts`,
 * retries in `_plan_after_attempt.ts`), calling off runs (`_running_runs.ts`),
 * and restoring at start (`_end_left_attempts.ts`).
 *
 * @module
 */
import { ConflictError, NotFoundError } from "../errors.ts";
import { APPLET_LIMITS } from "../limits.ts";
import type { HandlerCaller } from "../host/mod.ts";
import { printable } from "../internal/printable.ts";
import { readDeclaredIds } from "../projects/mod.ts";
import type { EventSink } from "../sync_event.ts";
import {
  type Account,
  type AccountInput,
  connectAccount,
  disconnectAccount,
  readAccount,
} from "./account.ts";
import { type Consent, grantConsent, revokeConsent } from "./consent.ts";
import { updateDeviceRecord } from "./device_record.ts";
import { type DeviceView, deviceView } from "./device_view.ts";
import { pauseDevice, resumeDevice } from "./pause_device.ts";
import { resetDevice, type ResetResult } from "./reset_device.ts";
import { type Scheduler, systemScheduler } from "./scheduler.ts";
import type { AttemptTrigger, TaskAttempt } from "./task_record.ts";
import { Admission } from "./_admission.ts";
import { type DeviceDeclaration, servingDevice, type TaskName } from "./_device_declaration.ts";
import { endLeftAttempts } from "./_end_left_attempts.ts";
import { FolderWatches } from "./_folder_watches.ts";
import { LookLoop } from "./_look_loop.ts";
import { folderGoneAttempt, isFolder } from "./_folder_gone_attempt.ts";
import { type AttemptEnd, runTaskAttempt } from "./_run_task_attempt.ts";
import { runDueTasks } from "./_run_due_tasks.ts";
import { runnableTask } from "./_runnable_task.ts";
import { RunningRuns } from "./_running_runs.ts";
import { settleAttempt } from "./_settle_attempt.ts";
import { stepGrant } from "./_step_grant.ts";
import { planFresh, planObserved, planReviewed } from "./_task_plans.ts";

/** What the runner needs of the host: the installation, project memories, and calls. */
export interface TaskRunnerHost extends HandlerCaller {
  /** The installation's KV. */
  readonly kv: Deno.Kv;
  /** The host's clock, in ms. */
  readonly now: () => number;
  /** The project's memory KV, where the account epoch is. */
  projectMemory(project: string): Promise<Deno.Kv>;
  /** Where a device's changes are told; nowhere when absent. */
  readonly events?: EventSink;
}

/** Options for {@linkcode TaskRunner}. */
export interface TaskRunnerOptions {
  /** The runner's time; the host's by default. Tests pass a fake one. */
  now?: () => number;
  /** Its timers; the system's by default. Tests pass one they drive. */
  scheduler?: Scheduler;
  /** Where its own lines go. */
  log?: (line: string) => void;
  /**
   * Finds the device a package declares in a project; read from the
   * manifest of the version serving there by default.
   */
  deviceOf?: (
    project: string,
    pkg: string,
    declared?: readonly string[],
  ) => Promise<DeviceDeclaration | null>;
  /** Watches a folder; `Deno.watchFs` by default. */
  watch?: (folder: string) => Deno.FsWatcher;
  /** Where a device's changes are told; the host's `events` by default. */
  events?: EventSink;
  /** The steps one attempt may make; `APPLET_LIMITS.maxStepsPerAttempt` by default. */
  maxStepsPerAttempt?: number;
}

/** Options for {@linkcode TaskRunner.runTask}. */
export interface RunTaskOptions {
  /** Who asked: a person (the default) or an agent. */
  trigger?: "person" | "agent";
}

/**
 * Runs devices' tasks. One per process: it is what keeps background steps to
 * one at a time. Not started, it still runs what is asked of it (a person's
 * run, their decisions), and nothing by itself.
 */
export class TaskRunner {
  #host: TaskRunnerHost;
  #now: () => number;
  #scheduler: Scheduler;
  #log: (line: string) => void;
  #deviceOf: (
    project: string,
    pkg: string,
    declared?: readonly string[],
  ) => Promise<DeviceDeclaration | null>;
  #events: EventSink | undefined;
  #maxSteps: number;
  /** Background steps, one at a time in the process. */
  #admission = new Admission();
  /** Runs going now, by device, to be called off. */
  #running = new RunningRuns();
  /** Devices whose folder changed: their next run is triggered by observation. */
  #observed = new Set<string>();
  #watches: FolderWatches;
  #started = false;
  /** Set while stopping: the look in progress starts nothing more. */
  #stopping = false;
  #looks: LookLoop;
  #signal: AbortSignal | undefined;
  #onAbort = () => void this.stop();

  /**
   * A runner over an installation; it runs nothing by itself until started.
   *
   * @param host What it calls handlers with, and the installation it keeps.
   * @param options Its time, timers, log, and where devices are read from.
   */
  constructor(host: TaskRunnerHost, options: TaskRunnerOptions = {}) {
    this.#host = host;
    this.#now = options.now ?? host.now;
    this.#scheduler = options.scheduler ?? systemScheduler();
    const log = options.log ?? ((line) => console.error(line));
    this.#log = (line) => log(printable(line));
    this.#deviceOf = options.deviceOf ??
      ((project, pkg, declared) => servingDevice(host.kv, project, pkg, declared));
    this.#maxSteps = options.maxStepsPerAttempt ?? APPLET_LIMITS.maxStepsPerAttempt;
    this.#events = options.events ?? host.events;
    this.#watches = new FolderWatches({
      scheduler: this.#scheduler,
      watch: options.watch ?? ((folder) => Deno.watchFs(folder, { recursive: true })),
      deviceOf: (project, pkg) => this.#deviceOf(project, pkg),
      onQuiet: (project, pkg) => void this.#observe(project, pkg),
      log: this.#log,
    });
    this.#looks = new LookLoop({
      now: this.#now,
      scheduler: this.#scheduler,
      log: this.#log,
      look: () =>
        runDueTasks(this.#host.kv, {
          now: this.#now,
          deviceOf: this.#deviceOf,
          stopping: () => this.#stopping,
          takeObserved: (project, pkg) => this.#observed.delete(JSON.stringify([project, pkg])),
          attempt: (project, pkg, task, device, how) =>
            this.#attempt(project, pkg, task, device, how),
        }),
    });
  }

  /** True between {@linkcode TaskRunner.start} and {@linkcode TaskRunner.stop}. */
  get running(): boolean {
    return this.#started;
  }

  /**
   * Starts running due tasks and watching observed folders. Attempts a
   * stopped process left unfinished are ended `cancelled` first.
   *
   * @param options A signal that stops the runner when aborted.
   */
  async start(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#started || options.signal?.aborted) return;
    this.#started = true;
    this.#signal = options.signal;
    this.#signal?.addEventListener("abort", this.#onAbort, { once: true });
    await endLeftAttempts(this.#host.kv, { now: this.#now });
    await this.#watches.follow(this.#host.kv);
    // A stop while starting leaves it stopped.
    if (this.#started) this.#looks.start();
  }

  /** Stops: calls off the runs going, closes the watchers, and waits for the look in progress. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#stopping = true;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#looks.halt();
    this.#running.callOffAll();
    this.#watches.closeAll();
    try {
      await this.#looks.settled();
      await this.#admission.drained();
    } finally {
      this.#stopping = false;
    }
  }

  /**
   * Runs every task that is due now, one at a time, and answers once they
   * ended. A look asked for while one runs waits for it.
   */
  async tick(): Promise<void> {
    await this.#looks.tick();
  }

  /**
   * The device a package declares in a project.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @throws {NotFoundError} when the package is not installed there or declares no device.
   */
  async device(project: string, pkg: string): Promise<DeviceDeclaration> {
    const device = await this.#deviceOf(project, pkg);
    if (!device) {
      throw new NotFoundError(`${pkg} in ${project} declares no device; it has nothing to connect`);
    }
    return device;
  }

  /** The device, refused in words when it is a website: there is nothing of it to pause or reset. */
  async #readingDevice(project: string, pkg: string, action: string): Promise<DeviceDeclaration> {
    const device = await this.device(project, pkg);
    if (device.modes.every((mode) => mode === "website")) {
      throw new ConflictError(
        `Cannot ${action} ${pkg}: ${device.name} is a website and reads nothing; ` +
          `open ${device.url ?? "its link"} instead`,
      );
    }
    return device;
  }

  /**
   * A device as a person sees it.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @throws {NotFoundError} when the package declares no device there.
   */
  async view(project: string, pkg: string): Promise<DeviceView> {
    const device = await this.device(project, pkg);
    return await deviceView(this.#host.kv, project, pkg, {
      device,
      processing: this.#running.has(project, pkg),
    });
  }

  /**
   * The devices of a project's installed packages, in the order installed.
   *
   * @param project The project's resolved path.
   */
  async list(project: string): Promise<DeviceView[]> {
    // The project's devices at once, each read in one round.
    const declared = await readDeclaredIds(project);
    const views = await Promise.all(declared.map(async (pkg) => {
      const device = await this.#deviceOf(project, pkg, declared).catch(() => null);
      if (!device) return null;
      return await deviceView(this.#host.kv, project, pkg, {
        device,
        processing: this.#running.has(project, pkg),
      });
    }));
    return views.filter((view): view is DeviceView => view !== null);
  }

  /**
   * Connects an account (or another one in its place): a run going is
   * called off, the notices about the old account go, and the device's tasks
   * are due at once when it reads by itself.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @param input The folder, or the origin and credential.
   * @returns The account, without the credential.
   * @throws {NotFoundError} when the package declares no device there.
   * @throws {InvalidInputError} when the account is not one the device takes.
   */
  async connect(project: string, pkg: string, input: AccountInput): Promise<Account> {
    const device = await this.device(project, pkg);
    const memory = await this.#host.projectMemory(project);
    const account = await connectAccount(this.#host.kv, memory, project, pkg, input, {
      device,
      now: this.#now,
    });
    this.#running.callOff(project, pkg, "fenced");
    await updateDeviceRecord(this.#host.kv, project, pkg, (record) => ({
      ...record,
      notice: record.notice?.kind === "review-run" ? record.notice : null,
    }));
    await planFresh(this.#host.kv, project, pkg, device, { now: this.#now });
    await this.#changed(project, pkg);
    return account;
  }

  /**
   * Disconnects the account and forgets its credential; a run going is
   * called off and commits nothing. The records stay.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @returns Whether an account was connected.
   * @throws {NotFoundError} when the package declares no device there.
   */
  async disconnect(project: string, pkg: string): Promise<boolean> {
    await this.device(project, pkg);
    const memory = await this.#host.projectMemory(project);
    const had = await disconnectAccount(this.#host.kv, memory, project, pkg);
    this.#running.callOff(project, pkg, "fenced");
    await updateDeviceRecord(this.#host.kv, project, pkg, (record) => ({
      ...record,
      notice: record.notice?.kind === "review-run" ? record.notice : null,
    }));
    await this.#changed(project, pkg);
    return had;
  }

  /**
   * Resets the device: its records, tasks and attempts go, its account
   * stays; a run going is called off and commits nothing, and the device
   * reads again from the start when it reads by itself.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @throws {NotFoundError} when the package declares no device there.
   * @throws {ConflictError} when the device is a website, which reads nothing.
   */
  async reset(project: string, pkg: string): Promise<ResetResult> {
    const device = await this.#readingDevice(project, pkg, "reset");
    const memory = await this.#host.projectMemory(project);
    this.#running.callOff(project, pkg, "fenced");
    const result = await resetDevice(this.#host.kv, memory, project, pkg);
    if (await readAccount(this.#host.kv, project, pkg)) {
      await planFresh(this.#host.kv, project, pkg, device, { now: this.#now });
    }
    await this.#changed(project, pkg);
    return result;
  }

  /**
   * Pauses the device: its content stays, a run going is called off, nothing runs.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @throws {NotFoundError} when the package declares no device there.
   * @throws {ConflictError} when the device is a website, which reads nothing.
   */
  async pause(project: string, pkg: string): Promise<void> {
    await this.#readingDevice(project, pkg, "pause");
    await pauseDevice(this.#host.kv, project, pkg);
    this.#running.callOff(project, pkg, "paused");
    await this.#changed(project, pkg);
  }

  /**
   * Resumes a paused device: what is due runs.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @throws {NotFoundError} when the package declares no device there.
   */
  async resume(project: string, pkg: string): Promise<void> {
    await this.device(project, pkg);
    await resumeDevice(this.#host.kv, project, pkg);
    await this.#changed(project, pkg);
  }

  /**
   * Allows the device's content to be processed at a named endpoint.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @param endpoint The endpoint it goes to.
   * @throws {NotFoundError} when the package declares no device there.
   * @throws {InvalidInputError} when the endpoint is not named.
   */
  async grantConsent(project: string, pkg: string, endpoint: string): Promise<Consent> {
    await this.device(project, pkg);
    const consent = await grantConsent(this.#host.kv, project, pkg, endpoint, { now: this.#now });
    this.#tell(project, pkg);
    return consent;
  }

  /**
   * Takes the consent back.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @returns Whether one was given.
   * @throws {NotFoundError} when the package declares no device there.
   */
  async revokeConsent(project: string, pkg: string): Promise<boolean> {
    await this.device(project, pkg);
    const had = await revokeConsent(this.#host.kv, project, pkg);
    this.#tell(project, pkg);
    return had;
  }

  /**
   * A person reviewed the failed or unknown run: the notice goes, a parked
   * task may run again (due at once when the device reads by itself).
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @throws {NotFoundError} when the package declares no device there.
   */
  async review(project: string, pkg: string): Promise<void> {
    const device = await this.device(project, pkg);
    await updateDeviceRecord(this.#host.kv, project, pkg, (record) => ({
      ...record,
      notice: record.notice?.kind === "review-run" ? null : record.notice,
    }));
    await planReviewed(this.#host.kv, project, pkg, device, { now: this.#now });
    await this.#changed(project, pkg);
  }

  /**
   * Runs a task now, as a person or an agent asked, and answers its attempt
   * once it ended (a transient failure is retried later, by the runner).
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @param task The task's name, such as `sync`.
   * @param options Who asked.
   * @throws {NotFoundError} when the package declares no device there, or no such task.
   * @throws {ConflictError} when the device does not run on demand, is paused, has no
   *   account, or the task waits for a person's review.
   */
  async runTask(
    project: string,
    pkg: string,
    task: string,
    options: RunTaskOptions = {},
  ): Promise<TaskAttempt> {
    const device = await this.device(project, pkg);
    const name = await runnableTask(this.#host.kv, project, pkg, task, device);
    const end = await this.#attempt(project, pkg, name, device, {
      trigger: options.trigger ?? "person",
      try: 1,
    });
    if (!end) {
      throw new ConflictError(
        `Cannot run ${pkg}'s ${task}: no account is connected; connect one first`,
      );
    }
    return end.attempt;
  }

  /** After a person's decision: it is told, the watchers follow it, and the runner looks again. */
  async #changed(project: string, pkg: string): Promise<void> {
    this.#tell(project, pkg);
    if (!this.#started) return;
    await this.#watches.follow(this.#host.kv);
    this.#looks.wake();
  }

  /** Tells whoever watches the project that the device changed. */
  #tell(project: string, pkg: string): void {
    this.#events?.publish({ type: "device", project, packageId: pkg });
  }

  /**
   * Runs one attempt of a task and settles what it means; null when the
   * device has no account to run with.
   */
  async #attempt(
    project: string,
    pkg: string,
    task: TaskName,
    device: DeviceDeclaration,
    how: { trigger: AttemptTrigger; try: number },
  ): Promise<AttemptEnd | null> {
    const { kv } = this.#host;
    const memoryKv = await this.#host.projectMemory(project);
    const grant = await stepGrant(kv, memoryKv, project, pkg);
    if (!grant) return null;
    const controller = this.#running.begin(project, pkg);
    this.#tell(project, pkg);
    try {
      const end = grant.kind === "folder" && !await isFolder(grant.folder)
        ? await folderGoneAttempt(kv, project, pkg, task, grant, { now: this.#now, ...how })
        : await runTaskAttempt({
          kv,
          memoryKv,
          caller: this.#host,
          now: this.#now,
          project,
          pkg,
          task,
          handler: device.tasks![task]!.handler,
          trigger: how.trigger,
          try: how.try,
          grant,
          signal: controller.signal,
          admit: (step) => this.#admission.admit(step),
          maxSteps: this.#maxSteps,
        });
      await settleAttempt(kv, project, pkg, task, device, end, { now: this.#now, log: this.#log });
      return end;
    } finally {
      this.#running.end(project, pkg, controller);
      this.#tell(project, pkg);
    }
  }

  /** A device's folder is quiet after a change: its tasks are brought forward. */
  async #observe(project: string, pkg: string): Promise<void> {
    if (!this.#started) return;
    const device = await this.#deviceOf(project, pkg).catch(() => null);
    if (!device) return;
    this.#observed.add(JSON.stringify([project, pkg]));
    await planObserved(this.#host.kv, project, pkg, device, { now: this.#now });
    this.#looks.wake();
  }

  /** Folders watched now (tests and diagnostics). */
  get watchedFolders(): string[] {
    return this.#watches.folders;
  }
}
