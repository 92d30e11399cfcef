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
 * What one attempt does is `_run_task_attempt.ts`.
 *
 * @module
 */
import { ConflictError, NotFoundError } from "../errors.ts";
import type { HandlerCaller } from "../host/mod.ts";
import { describeError } from "../internal/describe_error.ts";
import { printable } from "../internal/printable.ts";
import { APPLET_LIMITS } from "../limits.ts";
import { parseEvery, servingPackage } from "../packages/mod.ts";
import { readDeclaredIds } from "../projects/mod.ts";
import type { EventSink } from "../sync_event.ts";
import { accountsPrefix, allTaskAttemptsPrefix } from "./keys.ts";
import {
  type Account,
  type AccountInput,
  connectAccount,
  disconnectAccount,
  readAccount,
} from "./account.ts";
import { type Consent, grantConsent, revokeConsent } from "./consent.ts";
import {
  allowAccessNotice,
  type DeviceRecord,
  readDeviceRecord,
  reviewRunNotice,
  signInNotice,
  updateDeviceRecord,
} from "./device_record.ts";
import { type DeviceView, deviceView } from "./device_view.ts";
import { pauseDevice, resumeDevice } from "./pause_device.ts";
import { resetDevice, type ResetResult } from "./reset_device.ts";
import { type Scheduler, systemScheduler } from "./scheduler.ts";
import {
  type AttemptTrigger,
  readTaskRecord,
  type TaskAttempt,
  type TaskRecord,
  updateTaskRecord,
  writeAttempt,
} from "./task_record.ts";
import { newId } from "../internal/id.ts";
import { type DeviceDeclaration, deviceOf, type TaskName } from "./_device_declaration.ts";
import { type AttemptEnd, runTaskAttempt } from "./_run_task_attempt.ts";
import { stepGrant } from "./_step_grant.ts";

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
  deviceOf?: (project: string, pkg: string) => Promise<DeviceDeclaration | null>;
  /** Watches a folder; `Deno.watchFs` by default. */
  watch?: (folder: string) => Deno.FsWatcher;
  /** Where a device's changes are told; the host's `events` by default. */
  events?: EventSink;
}

/** Options for {@linkcode TaskRunner.runTask}. */
export interface RunTaskOptions {
  /** Who asked: a person (the default) or an agent. */
  trigger?: "person" | "agent";
}

/** A folder watched for a device in observation mode. */
interface Watched {
  folder: string;
  watcher: Deno.FsWatcher;
  cancelDebounce?: () => void;
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
  #deviceOf: (project: string, pkg: string) => Promise<DeviceDeclaration | null>;
  #watch: (folder: string) => Deno.FsWatcher;
  #events: EventSink | undefined;
  /** The last admitted step; the next waits for it. */
  #admission: Promise<unknown> = Promise.resolve();
  /** Runs going now, by device, to be called off. */
  #running = new Map<string, AbortController>();
  /** Devices whose folder changed: their next run is triggered by observation. */
  #observed = new Set<string>();
  #watched = new Map<string, Watched>();
  #started = false;
  /** Set while stopping: the look in progress starts nothing more. */
  #stopping = false;
  #cancelLook: (() => void) | undefined;
  #looking: Promise<void> | undefined;
  #lookAgain = false;
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
    this.#deviceOf = options.deviceOf ?? ((project, pkg) => this.#declared(project, pkg));
    this.#watch = options.watch ?? ((folder) => Deno.watchFs(folder, { recursive: true }));
    this.#events = options.events ?? host.events;
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
    await this.#endLeftAttempts();
    await this.#syncWatchers();
    this.#wake();
  }

  /** Stops: calls off the runs going, closes the watchers, and waits for the look in progress. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#stopping = true;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#cancelLook?.();
    this.#cancelLook = undefined;
    for (const controller of this.#running.values()) controller.abort("stopped");
    for (const watched of this.#watched.values()) this.#close(watched);
    this.#watched.clear();
    try {
      await this.#looking;
      await this.#admission.catch(() => {});
    } finally {
      this.#stopping = false;
    }
  }

  /**
   * Runs every task that is due now, one at a time, and answers once they
   * ended. A look asked for while one runs waits for it.
   */
  async tick(): Promise<void> {
    while (this.#looking) await this.#looking;
    const look = this.#lookOnce();
    this.#looking = look;
    try {
      await look;
    } finally {
      this.#looking = undefined;
    }
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
      processing: this.#running.has(deviceId(project, pkg)),
    });
  }

  /**
   * The devices of a project's installed packages, in the order installed.
   *
   * @param project The project's resolved path.
   */
  async list(project: string): Promise<DeviceView[]> {
    const views: DeviceView[] = [];
    for (const pkg of await readDeclaredIds(project)) {
      const device = await this.#deviceOf(project, pkg).catch(() => null);
      if (!device) continue;
      views.push(
        await deviceView(this.#host.kv, project, pkg, {
          device,
          processing: this.#running.has(deviceId(project, pkg)),
        }),
      );
    }
    return views;
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
    this.#callOff(project, pkg, "fenced");
    await updateDeviceRecord(this.#host.kv, project, pkg, (record) => ({
      ...record,
      notice: record.notice?.kind === "review-run" ? record.notice : null,
    }));
    await this.#planFresh(project, pkg, device);
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
    this.#callOff(project, pkg, "fenced");
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
   */
  async reset(project: string, pkg: string): Promise<ResetResult> {
    const device = await this.device(project, pkg);
    const memory = await this.#host.projectMemory(project);
    this.#callOff(project, pkg, "fenced");
    const result = await resetDevice(this.#host.kv, memory, project, pkg);
    if (await readAccount(this.#host.kv, project, pkg)) {
      await this.#planFresh(project, pkg, device);
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
   */
  async pause(project: string, pkg: string): Promise<void> {
    await this.device(project, pkg);
    await pauseDevice(this.#host.kv, project, pkg);
    this.#callOff(project, pkg, "paused");
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
    const auto = readsByItself(device);
    for (const name of taskNames(device)) {
      const stored = await readTaskRecord(this.#host.kv, project, pkg, name);
      if (!stored?.parkedUntilReview) continue;
      await updateTaskRecord(this.#host.kv, project, pkg, name, (task) => ({
        ...task,
        parkedUntilReview: false,
        failuresInRow: 0,
        nextRunAt: auto ? this.#now() : null,
      }), this.#now());
    }
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
    const declared = (device.tasks ?? {})[task as TaskName];
    if (!declared) {
      throw new NotFoundError(
        `${device.name} (${pkg}) has no task ${JSON.stringify(task)}; ` +
          `its tasks: ${taskNames(device).join(", ") || "none"}`,
      );
    }
    if (!device.modes.includes("on-demand")) {
      throw new ConflictError(
        `Cannot run ${pkg}'s ${task} now: ${device.name} does not run on demand ` +
          `(its modes: ${device.modes.join(", ")})`,
      );
    }
    const record = await readDeviceRecord(this.#host.kv, project, pkg);
    if (record.paused) {
      throw new ConflictError(`Cannot run ${pkg}'s ${task}: it is paused; resume it first`);
    }
    const stored = await readTaskRecord(this.#host.kv, project, pkg, task);
    if (stored?.parkedUntilReview) {
      throw new ConflictError(
        `Cannot run ${pkg}'s ${task}: a run's outcome is unknown and waits for a person; ` +
          `review it first`,
      );
    }
    const end = await this.#attempt(project, pkg, task as TaskName, device, {
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

  /** The device of a package as its serving manifest declares it. */
  async #declared(project: string, pkg: string): Promise<DeviceDeclaration | null> {
    const declaredIds = await readDeclaredIds(project);
    if (!declaredIds.includes(pkg)) return null;
    const loaded = await servingPackage(this.#host.kv, project, pkg, { declaredIds });
    return deviceOf(loaded.manifest);
  }

  /** Calls off a device's run going, if any. */
  #callOff(project: string, pkg: string, reason: "fenced" | "paused"): void {
    this.#running.get(deviceId(project, pkg))?.abort(reason);
  }

  /** A device's tasks become due at once when it reads by itself; their retries are forgotten. */
  async #planFresh(project: string, pkg: string, device: DeviceDeclaration): Promise<void> {
    const at = this.#now();
    const auto = readsByItself(device);
    for (const name of taskNames(device)) {
      await updateTaskRecord(this.#host.kv, project, pkg, name, (task) => ({
        ...task,
        failuresInRow: 0,
        nextRunAt: task.parkedUntilReview ? null : auto ? at : null,
      }), at);
    }
  }

  /** After a person's decision: it is told, the watchers follow it, and the runner looks again. */
  async #changed(project: string, pkg: string): Promise<void> {
    this.#tell(project, pkg);
    if (!this.#started) return;
    await this.#syncWatchers();
    this.#wake();
  }

  /** Tells whoever watches the project that the device changed. */
  #tell(project: string, pkg: string): void {
    this.#events?.publish({ type: "device", project, packageId: pkg });
  }

  /** Looks soon, once, whatever was planned. */
  #wake(): void {
    if (!this.#started) return;
    this.#cancelLook?.();
    this.#cancelLook = this.#scheduler.after(0, () => this.#look());
  }

  #look(): void {
    this.#cancelLook = undefined;
    if (!this.#started) return;
    if (this.#looking) {
      this.#lookAgain = true;
      return;
    }
    this.tick()
      .catch((error) => this.#log(`[tasks] a look failed: ${describeError(error).message}`))
      .finally(() => {
        if (this.#lookAgain) {
          this.#lookAgain = false;
          this.#wake();
        }
      });
  }

  /** One look: runs what is due, then plans the next look. */
  async #lookOnce(): Promise<void> {
    let soonest = Infinity;
    const { kv } = this.#host;
    // Read first: the runs below take long, and a listing is not held open across them.
    const connected: Deno.KvKey[] = [];
    for await (const entry of kv.list<Account>({ prefix: accountsPrefix() })) {
      connected.push(entry.key);
    }
    for (const key of connected) {
      if (this.#stopping) return;
      const [, project, pkg] = key as [string, string, string];
      const record = await readDeviceRecord(kv, project, pkg);
      if (record.paused || record.notice) continue;
      const device = await this.#deviceOf(project, pkg).catch(() => null);
      if (!device) continue;
      for (const name of taskNames(device)) {
        const task = await readTaskRecord(kv, project, pkg, name);
        if (!task || task.parkedUntilReview || task.nextRunAt === null) continue;
        if (this.#stopping) return;
        if (task.nextRunAt > this.#now()) {
          soonest = Math.min(soonest, task.nextRunAt);
          continue;
        }
        const id = deviceId(project, pkg);
        const trigger: AttemptTrigger = task.failuresInRow > 0
          ? "retry"
          : this.#observed.delete(id)
          ? "observation"
          : "schedule";
        await this.#attempt(project, pkg, name, device, {
          trigger,
          try: task.failuresInRow + 1,
        });
        const after = await readTaskRecord(kv, project, pkg, name);
        if (after?.nextRunAt != null) soonest = Math.min(soonest, after.nextRunAt);
        // A device the run turned red runs nothing more now.
        if ((await readDeviceRecord(kv, project, pkg)).notice) break;
      }
    }
    if (!this.#started) return;
    const wait = Math.min(Math.max(0, soonest - this.#now()), APPLET_LIMITS.lookEveryMs);
    this.#cancelLook?.();
    this.#cancelLook = this.#scheduler.after(wait, () => this.#look());
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
    const id = deviceId(project, pkg);
    if (this.#running.has(id)) {
      throw new ConflictError(`${pkg}'s device is running a task already; try again once it ended`);
    }
    const controller = new AbortController();
    this.#running.set(id, controller);
    this.#tell(project, pkg);
    try {
      if (grant.kind === "folder" && !await isFolder(grant.folder)) {
        // The folder went away or was made unreadable: only a person can mend that,
        // and calling the handler would tell nothing more.
        const why = `${grant.folder} is gone or cannot be read`;
        const at = this.#now();
        const attempt: TaskAttempt = {
          id: newId(at),
          task,
          accountId: grant.id,
          startedAt: at,
          endedAt: at,
          trigger: how.trigger,
          try: how.try,
          outcome: "failed",
          error: why,
          receipts: [],
        };
        await writeAttempt(kv, project, pkg, attempt);
        const failure = {
          outcome: "failed",
          notice: "allow-access",
          name: "AccountAccessError",
          message: why,
        } as const;
        const end: AttemptEnd = { attempt, failure, coverage: null };
        await this.#settle(project, pkg, task, device, end);
        return end;
      }
      const end = await runTaskAttempt({
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
        admit: (step) => this.#admit(step),
      });
      await this.#settle(project, pkg, task, device, end);
      return end;
    } finally {
      if (this.#running.get(id) === controller) this.#running.delete(id);
      this.#tell(project, pkg);
    }
  }

  /** One background step at a time in the process. */
  #admit<T>(step: () => Promise<T>): Promise<T> {
    const next = this.#admission.then(step);
    this.#admission = next.catch(() => {});
    return next;
  }

  /** What an attempt's end means for its task and its device. */
  async #settle(
    project: string,
    pkg: string,
    task: TaskName,
    device: DeviceDeclaration,
    end: AttemptEnd,
  ): Promise<void> {
    const { kv } = this.#host;
    const { failure, attempt } = end;
    // An obsolete run leaves nothing: not its coverage, not its plan.
    if (failure?.outcome === "fenced" || failure?.outcome === "cancelled") return;
    if (!failure) {
      await updateDeviceRecord(kv, project, pkg, (record) => ({
        ...record,
        notice: null,
        lastRead: end.coverage ? { at: attempt.endedAt!, coverage: end.coverage } : record.lastRead,
      }));
      await this.#settleTask(project, pkg, task, device, "ok", attempt.id);
      return;
    }
    this.#log(`[${pkg}] ${task} in ${project}: ${failure.outcome}: ${failure.message}`);
    if (failure.outcome === "transient") {
      await this.#settleTask(project, pkg, task, device, "transient", attempt.id);
      return;
    }
    const notice = failure.notice === "allow-access"
      ? allowAccessNotice(pkg, failure.message)
      : failure.notice === "sign-in"
      ? signInNotice(pkg, failure.message)
      : reviewRunNotice(pkg, task, failure.message);
    await updateDeviceRecord(kv, project, pkg, (record): DeviceRecord => ({ ...record, notice }));
    await this.#settleTask(project, pkg, task, device, failure.outcome, attempt.id);
  }

  /** When the task runs next, after an attempt with this outcome. */
  async #settleTask(
    project: string,
    pkg: string,
    task: TaskName,
    device: DeviceDeclaration,
    outcome: "ok" | "failed" | "transient" | "unknown",
    attemptId?: string,
  ): Promise<void> {
    const at = this.#now();
    const every = device.modes.includes("scheduled") ? device.tasks?.[task]?.every : undefined;
    const nextDue = every ? at + parseEvery(every) : null;
    const backoff = APPLET_LIMITS.retryBackoffMs;
    await updateTaskRecord(this.#host.kv, project, pkg, task, (record): TaskRecord => {
      const next: TaskRecord = { ...record, lastAttempt: attemptId ?? record.lastAttempt };
      if (outcome === "transient") {
        const failures = record.failuresInRow + 1;
        if (failures <= backoff.length) {
          return { ...next, failuresInRow: failures, nextRunAt: at + backoff[failures - 1] };
        }
        return { ...next, failuresInRow: 0, nextRunAt: nextDue };
      }
      if (outcome === "unknown") {
        return { ...next, failuresInRow: 0, nextRunAt: null, parkedUntilReview: true };
      }
      return { ...next, failuresInRow: 0, nextRunAt: nextDue };
    }, at);
  }

  /** Ends the attempts a stopped process left without an outcome. */
  async #endLeftAttempts(): Promise<void> {
    const { kv } = this.#host;
    for await (const entry of kv.list<TaskAttempt>({ prefix: allTaskAttemptsPrefix() })) {
      if (entry.value.outcome !== undefined) continue;
      await kv.atomic().check(entry).set(
        entry.key,
        {
          ...entry.value,
          endedAt: this.#now(),
          outcome: "cancelled",
          error: "Sync stopped while this run was going; the step that was running kept nothing",
        } satisfies TaskAttempt,
      ).commit();
    }
  }

  /** Watches the folder of every connected device in observation mode that is not paused. */
  async #syncWatchers(): Promise<void> {
    const wanted = new Map<string, string>();
    if (this.#started) {
      const { kv } = this.#host;
      for await (const entry of kv.list<Account>({ prefix: accountsPrefix() })) {
        const account = entry.value;
        if (account.kind !== "folder") continue;
        const [, project, pkg] = entry.key as [string, string, string];
        const device = await this.#deviceOf(project, pkg).catch(() => null);
        if (!device?.modes.includes("observation")) continue;
        if ((await readDeviceRecord(kv, project, pkg)).paused) continue;
        if (wanted.size >= APPLET_LIMITS.maxWatchedFolders) break;
        wanted.set(deviceId(project, pkg), account.folder);
      }
    }
    for (const [id, watched] of this.#watched) {
      if (wanted.get(id) === watched.folder) continue;
      this.#close(watched);
      this.#watched.delete(id);
    }
    for (const [id, folder] of wanted) {
      if (this.#watched.has(id)) continue;
      let watcher: Deno.FsWatcher;
      try {
        watcher = this.#watch(folder);
      } catch (error) {
        this.#log(`[tasks] cannot watch ${folder}: ${describeError(error).message}`);
        continue;
      }
      const watched: Watched = { folder, watcher };
      this.#watched.set(id, watched);
      void this.#follow(id, watched);
    }
  }

  /** Brings a device's next run forward once its folder is quiet for the debounce. */
  async #follow(id: string, watched: Watched): Promise<void> {
    try {
      for await (const _ of watched.watcher) {
        watched.cancelDebounce?.();
        watched.cancelDebounce = this.#scheduler.after(
          APPLET_LIMITS.observationDebounceMs,
          () => void this.#observe(id),
        );
      }
    } catch { /* the folder went away: the next run says so */ }
  }

  async #observe(id: string): Promise<void> {
    if (!this.#started) return;
    const [project, pkg] = JSON.parse(id) as [string, string];
    const device = await this.#deviceOf(project, pkg).catch(() => null);
    if (!device) return;
    this.#observed.add(id);
    const at = this.#now();
    for (const name of taskNames(device)) {
      await updateTaskRecord(this.#host.kv, project, pkg, name, (task) => ({
        ...task,
        nextRunAt: task.parkedUntilReview || task.failuresInRow > 0
          ? task.nextRunAt
          : Math.min(task.nextRunAt ?? at, at),
      }), at);
    }
    this.#wake();
  }

  #close(watched: Watched): void {
    watched.cancelDebounce?.();
    try {
      watched.watcher.close();
    } catch { /* closed already */ }
  }

  /** Folders watched now (tests and diagnostics). */
  get watchedFolders(): string[] {
    return [...this.#watched.values()].map((watched) => watched.folder);
  }
}

/** A device's name for the runner's maps. */
function deviceId(project: string, pkg: string): string {
  return JSON.stringify([project, pkg]);
}

/** The task names a device declares. */
function taskNames(device: DeviceDeclaration): TaskName[] {
  return (Object.keys(device.tasks ?? {}) as TaskName[]).filter((name) => device.tasks?.[name]);
}

/** Whether the device reads without being asked. */
function readsByItself(device: DeviceDeclaration): boolean {
  return device.modes.includes("scheduled") || device.modes.includes("observation");
}

/** Whether a folder is there and can be listed. */
async function isFolder(path: string): Promise<boolean> {
  try {
    if (!(await Deno.stat(path)).isDirectory) return false;
    for await (const _ of Deno.readDir(path)) break;
    return true;
  } catch {
    return false;
  }
}
