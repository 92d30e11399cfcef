/**
 * The host: what the installation's owner holds to run handlers — the
 * installation KV, the isolate pool, the open project memories — wired into
 * {@linkcode callHandler}.
 *
 * @module
 */
import { printable } from "../internal/printable.ts";
import { describeError } from "../internal/describe_error.ts";
import { IsolatePool } from "../isolate/mod.ts";
import { ParserPool } from "../parsers/mod.ts";
import { Foreground } from "./foreground.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../limits.ts";
import { ProjectMemories, RecordCursors } from "../memory/mod.ts";
import { ServingReads } from "../packages/mod.ts";
import {
  callHandler,
  type CallOptions,
  type CallResources,
  type CallResult,
  type HandlerCaller,
} from "./call.ts";
import { HandlerRateLimit } from "./handler_rate_limit.ts";
import { KeptGenerations } from "./kept_generations.ts";
import { LearntReads } from "./learnt_reads.ts";
import { recordCursorSecret } from "./record_cursor_secret.ts";
import { ProcessLock } from "./process_lock.ts";
import { recordInterruptedCalls } from "./running_claim.ts";
import { CallJournal, recordJournaledCalls } from "./call_journal.ts";
import type { Receipt } from "../types.ts";
import { EventBus } from "../event_bus.ts";
import type { WorkStateReader } from "./host_function.ts";
import type { DefinedAgents } from "../work/mod.ts";
import type { ResolveHost } from "./functions/resolve_host.ts";

/** Options for {@linkcode Host}. */
export interface HostOptions {
  /** The installation's KV. */
  kv: Deno.Kv;
  /** The installation folder. */
  home: string;
  /** The clock; tests pass a fake one. */
  now?: () => number;
  /** Limits for every call; tests pass smaller ones. */
  limits?: HandlerLimits;
  /** Where console lines and host notices go. */
  log?: (line: string) => void;
  /** Performs `net.fetch`; tests may pass their own. */
  fetch?: typeof fetch;
  /** Finds the addresses a name `net.fetch` reaches has; tests may pass their own. */
  resolve?: ResolveHost;
  /** An existing pool to run calls in. */
  pool?: IsolatePool;
  /**
   * The parsers `account.parseMail` and `account.parseCalendar` use; a pool
   * of the host's own when absent, whose workers start with its first parse.
   */
  parsers?: ParserPool;
  /**
   * A person's requests in flight, which a device's task steps let go first;
   * a gate of the host's own when absent.
   */
  foreground?: Foreground;
  /** Where the facts of what this host does are published; a bus of its own when absent. */
  events?: EventBus;
  /**
   * Reads where work stands, for `work.state()`: the state of the session
   * performing an order, or null while nothing has begun it (the order is
   * then `ordered`). Passed in by whoever knows how work is performed, since
   * that is above the host.
   */
  workState?: WorkStateReader;
  /**
   * The agents the installation defines, so that `work.order()` (and
   * sync-mcp's `work_order`) refuse an agent no one defined; passed in by
   * whoever reads agent definitions, since that is above the host. Any name
   * is taken when absent.
   */
  agents?: DefinedAgents;
  /**
   * How long a call runs before it claims its handler when nothing else made
   * it (`CLAIM_AFTER_MS`, `call.ts`, when absent): what counts a call's
   * crossings passes a longer one, so that a loaded machine does not change
   * what is counted.
   */
  claimAfterMs?: number;
}

/**
 * One per process. Holds the installation KV, the isolate pool, the open
 * project memories, and the lock that tells other processes this one still
 * runs the calls it claimed.
 */
export class Host implements HandlerCaller {
  /** The installation's KV (the caller's to close). */
  readonly kv: Deno.Kv;
  /** The installation folder. */
  readonly home: string;
  /** The host's clock, in ms. */
  readonly now: () => number;
  /** The limits every call runs under. */
  readonly limits: HandlerLimits;
  /** The isolates calls run in. */
  readonly pool: IsolatePool;
  /**
   * The permissionless workers that parse mail and calendar files for
   * `account.*`; none starts before the first parse.
   */
  readonly parsers: ParserPool;
  /** A person's requests in flight: the web app marks them, and task steps' host calls wait. */
  readonly foreground: Foreground;
  /**
   * Where the facts of what runs on this host are published (receipts,
   * switches, installs); the app's event stream watches it.
   */
  readonly events: EventBus;
  /** Performs `net.fetch` for handlers and screens; the global `fetch` when undefined. */
  readonly fetch: typeof fetch | undefined;
  /** Finds the addresses of a name `net.fetch` reaches; the system resolver when undefined. */
  readonly resolve: ResolveHost | undefined;
  /**
   * Where work stands (`HostOptions.workState`): what `work.state()` reads,
   * and sync-mcp's `work_state` with it; undefined where nothing performs work.
   */
  readonly workState: WorkStateReader | undefined;
  /** The agents an order may name (`HostOptions.agents`); undefined when any is taken. */
  readonly agents: DefinedAgents | undefined;
  #memories: ProjectMemories;
  #resources: CallResources;
  #log: (line: string) => void;
  #lock: Promise<ProcessLock> | undefined;
  /** This process's call journal, opened with its lock; null where none can be kept. */
  #journal: CallJournal | null = null;
  /** Made by {@linkcode Host.withLog}: what it holds is the other host's to close. */
  #borrowed = false;

  /**
   * A host over an installation, with a pool of its own unless one is given.
   *
   * @param options The installation, and what tests replace.
   */
  constructor(options: HostOptions) {
    this.kv = options.kv;
    this.home = options.home;
    this.now = options.now ?? Date.now;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.pool = options.pool ?? new IsolatePool({ size: this.limits.maxConcurrentCalls });
    // Made now, started lazily: a pool starts no worker until a file is parsed.
    this.foreground = options.foreground ?? new Foreground();
    this.parsers = options.parsers ?? new ParserPool({ yieldTo: this.foreground });
    this.events = options.events ?? new EventBus();
    this.fetch = options.fetch;
    this.resolve = options.resolve;
    this.workState = options.workState;
    this.agents = options.agents;
    // One entry, one line: what a handler wrote cannot start another.
    const log = options.log ?? ((line) => console.error(printable(line)));
    this.#log = log;
    this.#memories = new ProjectMemories({ log });
    this.#resources = {
      kv: this.kv,
      now: this.now,
      limits: this.limits,
      pool: this.pool,
      projectMemory: (project) => this.projectMemory(project),
      rateLimit: new HandlerRateLimit(this.kv, this.limits),
      servingReads: new ServingReads(),
      // Read (or made) the first time a listing pages, then kept for the process.
      cursors: new RecordCursors(() => recordCursorSecret(this.kv)),
      log,
      fetch: options.fetch,
      resolve: options.resolve,
      processLock: () => this.#processLock(),
      callJournal: () => this.#journal,
      events: this.events,
      workState: options.workState,
      agents: options.agents,
      // Shared with the views `withLog` makes: they run calls in this process too.
      runningHere: new Set(),
      learntReads: new LearntReads(),
      keptGenerations: new KeptGenerations(),
      claimAfterMs: options.claimAfterMs,
      parsers: this.parsers,
      foreground: this.foreground,
    };
  }

  /**
   * The project's memory KV (`<project>/.sync/memory.kv`), opened once per
   * process and checked each time against the file under that path: when the
   * folder was removed and made again, the new folder's memory is opened.
   *
   * @param project The project's resolved folder.
   * @throws {NotFoundError} when the project folder is gone.
   */
  projectMemory(project: string): Promise<Deno.Kv> {
    return this.#memories.open(project);
  }

  /**
   * Calls a handler as a transaction and leaves a receipt, whatever happens;
   * {@linkcode HandlerCaller.callHandler} says what it commits and what it refuses.
   *
   * @param projectDir The project folder.
   * @param id The package id.
   * @param handler The handler's name, such as `issues.poll`.
   * @param options Why and for whom the call is made, its payload, and what the caller already read.
   * @returns The handler's answer (`null` when it returned nothing) and the receipt.
   * @throws {SyncError} naming why the call failed; nothing was committed then.
   */
  callHandler(
    projectDir: string,
    id: string,
    handler: string,
    options: CallOptions,
  ): Promise<CallResult> {
    return callHandler(this.#resources, projectDir, id, handler, options);
  }

  /**
   * Leaves a receipt of outcome `interrupted` for every call whose process
   * stopped before the call ended (a `sync call` killed with `kill -9`, say),
   * and lets go of its claim. A process that owns the installation runs this
   * when it starts; each one found is logged. It never fails the process
   * starting: what cannot be looked at now is logged, and found again at the
   * next start or by the next call of the handler.
   *
   * @returns The receipts written.
   */
  async recordInterruptedCalls(): Promise<Receipt[]> {
    const lock = await this.#processLock();
    let receipts: Receipt[];
    try {
      receipts = await recordInterruptedCalls(this.kv, { now: this.now(), lock });
      // Then the calls gone processes had not claimed yet: their journals.
      receipts.push(...await recordJournaledCalls(this.kv, this.home, { now: this.now(), lock }));
      await lock.sweep();
    } catch (error) {
      this.#log(
        `Could not look for calls interrupted when their process stopped: ` +
          `${describeError(error).message}. They are looked for again at the next start.`,
      );
      return [];
    }
    for (const r of receipts) {
      this.events.publish({
        type: "receipt",
        project: r.project,
        packageId: r.packageId,
        receipt: r,
      });
      this.#log(
        `A call of ${r.handler} (${r.packageId}) in ${r.project} was interrupted: ` +
          `its process stopped before it ended. Its receipt says so.`,
      );
    }
    return receipts;
  }

  /**
   * The lock this host holds while it runs calls in the installation, taken
   * at its first call: its claims name it, so others can tell when it is gone.
   */
  #processLock(): Promise<ProcessLock> {
    this.#lock ??= ProcessLock.take(this.home).then((lock) => {
      this.#journal = CallJournal.open(this.home, lock);
      return lock;
    });
    return this.#lock;
  }

  /**
   * This host, writing handlers' console lines to `log` instead: the serve
   * that owns the installation runs a person's CLI command with one, so that
   * the lines go back to that person's terminal. It shares this host's KV,
   * pool and open memories; closing it closes nothing.
   *
   * @param log Where console lines and host notices of calls made through it go.
   */
  withLog(log: (line: string) => void): Host {
    const view = new Host({
      kv: this.kv,
      home: this.home,
      now: this.now,
      limits: this.limits,
      pool: this.pool,
      parsers: this.parsers,
      foreground: this.foreground,
      events: this.events,
      fetch: this.fetch,
      resolve: this.resolve,
      log,
      workState: this.workState,
      agents: this.agents,
    });
    view.#memories = this.#memories;
    view.#resources = { ...this.#resources, log };
    view.#borrowed = true;
    return view;
  }

  /**
   * Closes the pools (isolates and parsers) and the project memories, and lets go of the host's
   * process lock (the installation KV is the caller's).
   */
  async close(): Promise<void> {
    if (this.#borrowed) return;
    this.pool.close();
    this.parsers.close();
    this.#journal?.close();
    this.#journal = null;
    if (this.#lock) (await this.#lock).release();
    this.#lock = undefined;
    await this.#memories.close();
  }

  /**
   * Closes and forgets a project's open memory (after its project folder is
   * removed, say); the next {@linkcode Host.projectMemory} opens it afresh.
   *
   * @param project The project's resolved folder.
   */
  forgetProject(project: string): Promise<void> {
    return this.#memories.forget(project);
  }
}
