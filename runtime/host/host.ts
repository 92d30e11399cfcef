/**
 * The host: what the installation's owner holds to run handlers — the
 * installation KV, the isolate pool, the open project memories — wired into
 * {@linkcode callHandler}.
 *
 * @module
 */
import { IsolatePool } from "../isolate/mod.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../limits.ts";
import { openProjectMemory } from "../memory/mod.ts";
import {
  callHandler,
  type CallOptions,
  type CallResources,
  type CallResult,
  type HandlerCaller,
} from "./call.ts";
import { HandlerRateLimit } from "./handler_rate_limit.ts";

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
  /** An existing pool to run calls in. */
  pool?: IsolatePool;
}

/**
 * One per process. Holds the installation KV, the isolate pool, and the open
 * project memories.
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
  #memories = new Map<string, Promise<Deno.Kv>>();
  #resources: CallResources;
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
    this.#resources = {
      kv: this.kv,
      now: this.now,
      limits: this.limits,
      pool: this.pool,
      projectMemory: (project) => this.projectMemory(project),
      rateLimit: new HandlerRateLimit(this.kv, this.limits),
      log: options.log ?? ((line) => console.error(line)),
      fetch: options.fetch,
    };
  }

  /**
   * The project's memory KV (`<project>/.sync/memory.kv`), opened once per process.
   *
   * @param project The project's resolved folder.
   */
  projectMemory(project: string): Promise<Deno.Kv> {
    let memory = this.#memories.get(project);
    if (!memory) {
      memory = openProjectMemory(project);
      this.#memories.set(project, memory);
      memory.catch(() => this.#memories.delete(project));
    }
    return memory;
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
      log,
    });
    view.#memories = this.#memories;
    view.#resources = { ...this.#resources, log };
    view.#borrowed = true;
    return view;
  }

  /** Closes the pool and the project memories (the installation KV is the caller's). */
  async close(): Promise<void> {
    if (this.#borrowed) return;
    this.pool.close();
    for (const memory of this.#memories.values()) {
      try {
        (await memory).close();
      } catch { /* already closed or never opened */ }
    }
    this.#memories.clear();
  }

  /**
   * Closes and forgets a project's open memory (after its project folder is
   * removed, say); the next {@linkcode Host.projectMemory} opens it afresh.
   *
   * @param project The project's resolved folder.
   */
  async forgetProject(project: string): Promise<void> {
    const memory = this.#memories.get(project);
    this.#memories.delete(project);
    if (memory) (await memory).close();
  }
}
