/**
 * The host: resolves which package serves a project, runs its handlers in the
 * isolate pool as transactions, and leaves a receipt for every attempt.
 *
 * @module
 */
import {
  HandlerBusyError,
  InvalidInputError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
} from "../errors.ts";
import { type Generation, readGeneration } from "../memory/generation.ts";
import { IsolatePool } from "../isolate/pool.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../limits.ts";
import { declaredHosts } from "../packages/manifest.ts";
import { MemoryAccess } from "../memory/access.ts";
import { MemoryTransaction } from "../memory/transaction.ts";
import { netFetch } from "./functions/net_fetch.ts";
import { type ServingOptions, servingPackage } from "../packages/serving.ts";
import { type LoadedPackage, publishedKinds, readServiceSource } from "../packages/store.ts";
import { readDeclaredIds, resolveProjectDir } from "../projects/project.ts";
import { openProjectMemory } from "../memory/store.ts";
import { writeReceipt } from "./receipts.ts";
import type { RecordInput, RecordQuery } from "../memory/record.ts";
import type { Occasion, Receipt, Source } from "../types.ts";
import { parseWorkOrder, readWorkOrder, type WorkOrder, writeWorkOrders } from "../work/order.ts";
import { describeError } from "../internal/describe_error.ts";
import { newId } from "../internal/id.ts";
import { type HandlerHold, holdHandler, runningClaimKey } from "./running_claim.ts";
import type { HostFunctionName } from "../isolate/protocol.ts";

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

/** Options for {@linkcode Host.callHandler}. */
export interface CallOptions {
  occasion: Occasion;
  /** Who asked; carried into any work the call orders. */
  source: Source;
  payload?: unknown;
  /**
   * The generation the caller saw before it decided to call. The call
   * commits only if the package's generation is still this one, so a person
   * who switched the clock off between the decision and the call wins. When
   * absent, the generation is read as the call starts.
   */
  generation?: Generation;
  /**
   * The ids to take as the project's installed ones instead of reading
   * `.sync/extensions.json`: the clock passes the ids remembered when the
   * project was last opened, since it never reads a repository.
   */
  declaredIds?: readonly string[];
  /**
   * The artefact to call instead of the one serving the project now: an
   * install runs the `installed` handler of what it is about to install,
   * before anything of it is committed.
   */
  package?: LoadedPackage;
  /**
   * Leave no receipt when the handler is already running, so the call never
   * started: the clock takes such an attempt back and says so itself.
   */
  noReceiptWhenBusy?: boolean;
}

/** What a call answered, with its receipt. */
export interface CallResult {
  value: unknown;
  receipt: Receipt;
}

/**
 * One per process. Holds the installation KV, the isolate pool, and the open
 * project memories.
 */
export class Host {
  readonly kv: Deno.Kv;
  readonly home: string;
  readonly now: () => number;
  readonly limits: HandlerLimits;
  readonly pool: IsolatePool;
  #log: (line: string) => void;
  #fetch?: typeof fetch;
  #memories = new Map<string, Promise<Deno.Kv>>();
  #calls = new Map<string, number[]>();

  constructor(options: HostOptions) {
    this.kv = options.kv;
    this.home = options.home;
    this.now = options.now ?? Date.now;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.pool = options.pool ?? new IsolatePool({ size: this.limits.maxConcurrentCalls });
    this.#log = options.log ?? ((line) => console.error(line));
    this.#fetch = options.fetch;
  }

  /** The project's memory KV, opened once per process. */
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
   * The package that serves `id` in `project` now (see {@linkcode servingPackage}),
   * reading the project's installed ids when the caller does not pass them.
   *
   * @throws {NotFoundError} when the package is not installed in the project or on this machine.
   * @throws {ApprovalRequiredError} when nothing approved can serve.
   */
  async servingPackage(
    project: string,
    id: string,
    options: Partial<ServingOptions> = {},
  ): Promise<LoadedPackage> {
    const declaredIds = options.declaredIds ?? await readDeclaredIds(project);
    return await servingPackage(this.kv, project, id, { ...options, declaredIds });
  }

  /**
   * Calls a handler as a transaction and leaves a receipt, whatever happens.
   *
   * @returns The handler's answer (`null` when it returned nothing).
   * @throws A domain error from `errors.ts` naming why the call failed; nothing was committed then.
   */
  async callHandler(
    projectDir: string,
    id: string,
    handler: string,
    options: CallOptions,
  ): Promise<CallResult> {
    const startedAt = this.now();
    const project = await resolveProjectDir(projectDir);
    const running = `${project}\0${id}\0${handler}`;
    const claimKey = runningClaimKey(project, id, handler);
    let hold: HandlerHold | null = null;
    let transaction: MemoryTransaction | undefined;
    const receipt: Receipt = {
      id: newId(startedAt),
      project,
      packageId: id,
      handler,
      occasion: options.occasion,
      startedAt: new Date(startedAt).toISOString(),
      endedAt: "",
      outcome: "ok",
    };
    try {
      const declaredIds = options.declaredIds ?? await readDeclaredIds(project);
      const pkg = options.package ?? await this.servingPackage(project, id, { declaredIds });
      if (!(handler in pkg.manifest.handlers)) {
        const declared = Object.keys(pkg.manifest.handlers);
        throw new NotFoundError(
          `${id} has no handler ${handler}` +
            (declared.length ? `; it declares ${declared.join(", ")}` : "; it declares none"),
        );
      }
      const forMs = this.limits.timeoutMs + this.limits.workerGraceMs + 5_000;
      hold = await holdHandler(this.kv, claimKey, { now: this.now, forMs });
      if (hold === null) {
        throw new HandlerBusyError(
          `${handler} is already running in ${project}; a handler is not re-entered. ` +
            `Try again when it ends (a call whose process stopped lets go within ` +
            `${Math.ceil(forMs / 1000)} s)`,
        );
      }
      this.#countCall(running, handler, startedAt);

      const memory = await this.projectMemory(project);
      const generation = options.generation ?? await readGeneration(memory, id);
      transaction = new MemoryTransaction(memory, {
        packageId: id,
        generation,
        now: () => new Date(this.now()),
      });
      const access = new MemoryAccess(id, await this.#publishedKinds(project, pkg, declaredIds));
      const orders: WorkOrder[] = [];
      const value = await this.pool.call({
        source: await readServiceSource(pkg),
        sourceName: `${id}/${pkg.manifest.service}`,
        packageId: id,
        handler,
        payload: options.payload ?? null,
        occasion: options.occasion,
        limits: this.limits,
      }, {
        host: (fn, args) =>
          this.#dispatch(fn, args, {
            pkg,
            project,
            transaction: transaction!,
            access,
            orders,
            options,
            handler,
          }),
        log: (level, text) => this.#log(`[${id}] ${level === "log" ? "" : `${level}: `}${text}`),
      });
      await transaction.commit();
      await writeWorkOrders(this.kv, orders);
      receipt.endedAt = new Date(this.now()).toISOString();
      return { value, receipt };
    } catch (error) {
      try {
        transaction?.discard();
      } catch {
        // A commit that was refused already finished the transaction; its error is the one to tell.
      }
      receipt.outcome = "failed";
      receipt.error = describeError(error);
      receipt.endedAt = new Date(this.now()).toISOString();
      throw error;
    } finally {
      await hold?.release();
      const busy = receipt.error?.name === "HandlerBusyError" && hold === null;
      if (!(busy && options.noReceiptWhenBusy)) await writeReceipt(this.kv, receipt);
    }
  }

  /** Closes the pool and the project memories (the installation KV is the caller's). */
  async close(): Promise<void> {
    this.pool.close();
    for (const memory of this.#memories.values()) {
      try {
        (await memory).close();
      } catch { /* already closed or never opened */ }
    }
    this.#memories.clear();
  }

  /** Forgets an open memory (after its project folder is removed, say). */
  async forgetProject(project: string): Promise<void> {
    const memory = this.#memories.get(project);
    this.#memories.delete(project);
    if (memory) (await memory).close();
  }

  /** Counts a call against the per-handler rate limit. */
  #countCall(running: string, handler: string, now: number): void {
    const window = this.limits.rateWindowMs;
    const recent = (this.#calls.get(running) ?? []).filter((at) => now - at < window);
    if (recent.length >= this.limits.rateLimit) {
      throw new RateLimitedError(
        `${handler} was called ${recent.length} times in the last ${window / 1000} s; ` +
          `the limit is ${this.limits.rateLimit}. Try again later`,
      );
    }
    recent.push(now);
    this.#calls.set(running, recent);
  }

  /**
   * Kinds the project's packages publish, and the calling package's own (it
   * may not be among `declaredIds` yet while its install runs `installed`).
   */
  async #publishedKinds(
    project: string,
    calling: LoadedPackage,
    declaredIds: readonly string[],
  ): Promise<string[]> {
    const kinds: string[] = await publishedKinds(calling);
    for (const id of declaredIds) {
      if (id === calling.manifest.id) continue;
      try {
        const pkg = await this.servingPackage(project, id, { declaredIds });
        kinds.push(...await publishedKinds(pkg));
      } catch {
        // A package that cannot serve publishes nothing right now.
      }
    }
    return kinds;
  }

  async #dispatch(
    fn: HostFunctionName,
    args: unknown,
    call: {
      pkg: LoadedPackage;
      project: string;
      transaction: MemoryTransaction;
      access: MemoryAccess;
      orders: WorkOrder[];
      options: CallOptions;
      handler: string;
    },
  ): Promise<unknown> {
    const { pkg, transaction, access } = call;
    const id = pkg.manifest.id;
    switch (fn) {
      case "memory.list": {
        const query = (args ?? {}) as RecordQuery;
        if (typeof query !== "object" || Array.isArray(query)) {
          throw new InvalidInputError("memory.list() takes { kind?, prefix?, limit?, cursor? }");
        }
        if (query.kind !== undefined) access.assertReadKind(String(query.kind));
        const page = await transaction.list(query);
        return { ...page, records: page.records.filter((r) => access.canRead(r.kind)) };
      }
      case "memory.record": {
        const key = keyArg(fn, args);
        access.assertReadKey(key);
        return await transaction.record(key);
      }
      case "memory.content": {
        const key = keyArg(fn, args);
        access.assertReadKey(key);
        return await transaction.content(key);
      }
      case "memory.write": {
        const input = args as RecordInput;
        if (!input || typeof input !== "object" || typeof input.key !== "string") {
          throw new InvalidInputError(
            "memory.write() takes { key, title?, fields?, content?, revision? }",
          );
        }
        access.assertWriteKey(input.key);
        return await transaction.write(input);
      }
      case "memory.remove": {
        const key = keyArg(fn, args);
        access.assertWriteKey(key, "remove");
        return await transaction.remove(key);
      }
      case "work.order": {
        if (!pkg.manifest.permissions.includes("work.agent")) {
          throw new PermissionDeniedError(
            `work.order() needs the work.agent permission, which ${id} does not declare`,
          );
        }
        const input = parseWorkOrder(args);
        const order: WorkOrder = {
          ...input,
          key: `work-${newId(this.now())}`,
          project: call.project,
          extensionId: id,
          source: {
            kind: "handler",
            extensionId: id,
            extensionName: pkg.manifest.name,
            handler: call.handler,
          },
          state: "ordered",
          orderedAt: new Date(this.now()).toISOString(),
        };
        call.orders.push(order);
        return { key: order.key };
      }
      case "work.state": {
        if (!pkg.manifest.permissions.includes("work.agent")) {
          throw new PermissionDeniedError(
            `work.state() needs the work.agent permission, which ${id} does not declare`,
          );
        }
        const key = keyArg(fn, args);
        const order = call.orders.find((o) => o.key === key) ?? await readWorkOrder(this.kv, key);
        if (!order || order.extensionId !== id || order.project !== call.project) {
          throw new NotFoundError(`${id} ordered no work ${key} in this project`);
        }
        return {
          key: order.key,
          state: order.state,
          title: order.title,
          orderedAt: order.orderedAt,
        };
      }
      case "net.fetch":
        return await netFetch(args, {
          packageId: id,
          hosts: declaredHosts(pkg.manifest),
          timeoutMs: Math.min(this.limits.fetchTimeoutMs, this.limits.timeoutMs),
          maxBytes: this.limits.maxFetchBytes,
          fetch: this.#fetch,
        });
    }
  }
}

function keyArg(fn: string, args: unknown): string {
  const key = typeof args === "string" ? args : (args as { key?: unknown })?.key;
  if (typeof key !== "string") {
    throw new InvalidInputError(`${fn}() takes a record key like "kind/name"`);
  }
  return key;
}
