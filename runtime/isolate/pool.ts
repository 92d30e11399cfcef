/**
 * The isolate pool: Web Workers with no Deno permissions, each running QuickJS,
 * that run handler calls one at a time. The host side of the protocol in
 * `protocol.ts`, whose worker side is `workers/isolate_worker.ts`.
 * Workers start from that file's bundle, `workers/dist/isolate_worker.js`
 * (`deno task build:worker`): one module to load rather than a dozen, which
 * is a large part of a worker's cold start.
 *
 * @module
 */
import {
  CancelledError,
  HandlerBusyError,
  HandlerFailedError,
  HandlerResourceError,
  HandlerTimeoutError,
  InvalidValueError,
  PayloadTooLargeError,
  RateLimitedError,
  SyncError,
} from "../errors.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../limits.ts";
import { quickJSWasmModule } from "./quickjs_wasm.ts";
import type { Occasion } from "../extension_api/service.ts";
import { hostCallBytes } from "./protocol.ts";
import type {
  CallMessage,
  ConsoleLevel,
  CrossedError,
  FromWorker,
  HostFunctionName,
  ProbeMessage,
  ProbeReport,
  ReadAhead,
  ToWorker,
} from "./protocol.ts";

/** One handler call for the pool to run. */
export interface IsolateCall {
  /** The service module's source text. */
  source: string;
  /** Name the module is evaluated under, e.g. `issues/service/index.js`. */
  sourceName: string;
  /** The package the handler belongs to. */
  packageId: string;
  /** The handler's name, such as `issues.poll`: the key `register()` returned it under. */
  handler: string;
  /** Any JSON value. */
  payload: unknown;
  /** Why the handler is called; it is handed the occasion as its second argument. */
  occasion: Occasion;
  /** Defaults to {@linkcode DEFAULT_LIMITS}. */
  limits?: HandlerLimits;
  /** The host's time as the call begins, which the handler's `Date` reads; the worker's when absent. */
  now?: number;
  /**
   * Reads to make beside the call with {@linkcode CallHooks.readAhead}, as it
   * starts, and hand the worker before the handler asks for them.
   */
  ahead?: ReadAhead[];
  /**
   * For background work: a flag shared with the worker, 1 while a person's
   * request goes first; the handler's code pauses while it is
   * ({@linkcode CallMessage.yieldTo}).
   */
  yieldTo?: Int32Array;
}

/** A service module for the pool to probe: loaded, its `register()` called, no handler run. */
export interface IsolateProbe {
  /** The service module's source text. */
  source: string;
  /** Name the module is evaluated under, e.g. `issues/service/index.js`. */
  sourceName: string;
  /** The package the module belongs to. */
  packageId: string;
  /** Defaults to {@linkcode DEFAULT_LIMITS}. */
  limits?: HandlerLimits;
}

/**
 * Performs one host function for handler code; its answer crosses back as
 * JSON. `signal` aborts when the handler call ends, so that work the handler
 * started and did not wait for (a fetch, say) does not outlive it.
 */
export type HostDispatch = (
  fn: HostFunctionName,
  args: unknown,
  signal: AbortSignal,
) => Promise<unknown>;

/** What the pool calls back into while a handler runs. */
export interface CallHooks {
  /** Host functions (memory, work, net). */
  host: HostDispatch;
  /**
   * The longest JSON a function's answer may cross back as, for functions
   * that bound their answers by limits of their own; `maxHostValueBytes` when
   * absent or for other functions.
   */
  answerLimit?: (fn: HostFunctionName) => number | undefined;
  /**
   * Makes one of the call's {@linkcode IsolateCall.ahead} reads: as `host`
   * would, but at the host's own initiative, so a read the handler never
   * makes is not taken as one it made. Without it, nothing is read ahead.
   */
  readAhead?: HostDispatch;
  /** Told, when the call answers, the reads it began with ({@linkcode DoneMessage.reads}). */
  readsMade?: (reads: ReadAhead[]) => void;
  /**
   * Console lines from handler code, and the worker's notice (`notice` true)
   * that the handler's further lines are dropped past its line budget.
   */
  log?: (level: ConsoleLevel, text: string, notice: boolean) => void;
  /** Told, when the call answers, how many console lines the worker dropped past its budget. */
  consoleDropped?: (count: number) => void;
  /**
   * Aborted when the call's answer is no longer wanted (its claim was
   * refused): a call that has no worker yet then never runs, and fails.
   */
  signal?: AbortSignal;
  /**
   * Aborted when the caller calls the call off: a call that has no worker
   * yet never runs, and a running one is abandoned at once, its worker
   * terminated and replaced, so nothing it does afterwards reaches the host.
   * The call fails with {@linkcode CancelledError}.
   */
  cancel?: AbortSignal;
}

/** Options for {@linkcode IsolatePool}. */
export interface IsolatePoolOptions {
  /** Workers at most, which is the ceiling on concurrent calls. */
  size?: number;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  busy: boolean;
  active?: Active;
}

interface Active {
  callId: number;
  hooks: CallHooks;
  limits: HandlerLimits;
  resolve: (json: string) => void;
  reject: (error: Error) => void;
  /** Host calls being performed for the call, and the bytes they count. */
  inFlight: number;
  inFlightBytes: number;
  /**
   * Aborted when the call ends; made at the call's first host call, since
   * most calls make none and an abort costs an error object.
   */
  ended?: AbortController;
  /** The call has ended. */
  finished: boolean;
}

/** The signal that aborts when `active`'s call ends. */
function endedSignal(active: Active): AbortSignal {
  if (!active.ended) {
    active.ended = new AbortController();
    if (active.finished) active.ended.abort(CALL_ENDED);
  }
  return active.ended.signal;
}

/**
 * The reason every ended call's signal gives: made once, since an abort
 * without one makes a `DOMException`, and its stack, at every call.
 */
const CALL_ENDED = new DOMException("The handler call ended", "AbortError");

/**
 * The module every isolate worker starts from: `workers/isolate_worker.ts`
 * bundled with all it imports, so a new worker loads and compiles one file.
 */
export const ISOLATE_WORKER_URL: URL = new URL(
  "../../workers/dist/isolate_worker.js",
  import.meta.url,
);

/**
 * Runs handler calls in QuickJS isolates inside permissionless workers. A
 * worker that stops answering is terminated and replaced; calls beyond the
 * pool's size wait for a free worker.
 *
 * @example
 * ```ts
 * const pool = new IsolatePool({ size: 2 });
 * const answer = await pool.call(
 *   { source, sourceName: "hello/service/index.js", packageId: "hello", handler: "hello.greet",
 *     payload: { name: "Ada" }, occasion: { kind: "extension" } },
 *   { host: () => Promise.reject(new Error("no host functions")) },
 * );
 * pool.close();
 * ```
 */
export class IsolatePool {
  #size: number;
  #slots: Slot[] = [];
  #queue: ((slot: Slot) => void)[] = [];
  #nextCallId = 1;
  #closed = false;
  #replaced = 0;
  #sent = 0;
  #received = 0;

  /**
   * Makes a pool; no worker starts until the first call (or {@linkcode IsolatePool.warm}).
   *
   * @param options How many workers at most; by default `DEFAULT_LIMITS.maxConcurrentCalls`.
   */
  constructor(options: IsolatePoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? DEFAULT_LIMITS.maxConcurrentCalls);
  }

  /** Workers terminated and replaced so far (after a hang or a crash). */
  get replacedWorkers(): number {
    return this.#replaced;
  }

  /**
   * Messages about calls sent to workers and received from them so far (a
   * worker's start and its `ready` are not counted): what a call costs in
   * crossings between threads, counted where it is cheap to count.
   */
  get messages(): { sent: number; received: number } {
    return { sent: this.#sent, received: this.#received };
  }

  /** Starts one worker ahead of the first call. */
  async warm(): Promise<void> {
    if (this.#slots.length === 0) this.#newSlot().busy = false;
    await this.#slots[0].ready;
  }

  /**
   * Runs one handler call and returns its answer (`null` when it returns nothing).
   * It waits for a free worker when all are busy.
   *
   * @param call The service module, the handler, its payload and occasion, and the limits.
   * @param hooks What host functions and console lines of the handler go to.
   * @throws {HandlerTimeoutError} past the wall-clock limit, awaits included.
   * @throws {HandlerResourceError} past the memory or stack cap.
   * @throws {HandlerFailedError} when the module fails to load, or `register()` or the handler throws.
   * @throws {PayloadTooLargeError} when the payload or the answer is over the size cap.
   * @throws {InvalidValueError} when the payload or the answer is not plain JSON.
   * @throws {HandlerBusyError} when the pool is closed.
   */
  async call(call: IsolateCall, hooks: CallHooks): Promise<unknown> {
    if (this.#closed) throw new HandlerBusyError("The isolate pool is closed");
    const limits = call.limits ?? DEFAULT_LIMITS;
    const payload = JSON.stringify(call.payload ?? null);
    if (payload === undefined) {
      throw new InvalidValueError(`The payload for ${call.handler} is not JSON`);
    }
    if (payload.length > limits.maxValueBytes) {
      throw new PayloadTooLargeError(
        `The payload for ${call.handler} is ${payload.length} bytes of JSON; the limit is ${limits.maxValueBytes}`,
      );
    }
    const slot = await this.#acquire();
    try {
      if (hooks.signal?.aborted) {
        throw new HandlerBusyError(`The call of ${call.handler} was called off before it ran`);
      }
      if (hooks.cancel?.aborted) throw cancelled(call.handler);
      await slot.ready;
      const json = await this.#run(slot, {
        type: "call",
        callId: this.#nextCallId++,
        source: call.source,
        sourceName: call.sourceName,
        packageId: call.packageId,
        handler: call.handler,
        payload,
        occasion: call.occasion,
        limits,
        ...(call.now !== undefined ? { now: call.now } : {}),
        ...(call.ahead?.length && hooks.readAhead ? { ahead: call.ahead } : {}),
        ...(call.yieldTo ? { yieldTo: call.yieldTo } : {}),
      }, hooks);
      return JSON.parse(json);
    } finally {
      this.#release(slot);
    }
  }

  /**
   * Loads a service module and calls its `register()` in a fresh isolate,
   * exactly as a handler call would, but calls no handler: the answer says
   * what the default export is and which keys `register()` returned. Host
   * functions called by the module's top level or by `register()` go to
   * `hooks`.
   *
   * @param probe The service module, and the limits it loads under.
   * @param hooks What host functions and console lines of the module go to.
   * @returns The report; a module that fails to load or whose `register()`
   *   throws is described in `failed`, not thrown.
   * @throws {HandlerTimeoutError} when the worker stops answering.
   * @throws {HandlerBusyError} when the pool is closed.
   */
  async probe(probe: IsolateProbe, hooks: CallHooks): Promise<ProbeReport> {
    if (this.#closed) throw new HandlerBusyError("The isolate pool is closed");
    const slot = await this.#acquire();
    try {
      await slot.ready;
      const json = await this.#run(slot, {
        type: "probe",
        callId: this.#nextCallId++,
        source: probe.source,
        sourceName: probe.sourceName,
        packageId: probe.packageId,
        limits: probe.limits ?? DEFAULT_LIMITS,
      }, hooks);
      return JSON.parse(json) as ProbeReport;
    } finally {
      this.#release(slot);
    }
  }

  /** Terminates every worker. Calls still running fail. */
  close(): void {
    this.#closed = true;
    for (const slot of this.#slots) {
      slot.active?.reject(new HandlerFailedError("The host is shutting down"));
      slot.worker.terminate();
    }
    this.#slots = [];
  }

  #newSlot(): Slot {
    const slot = { busy: true } as Slot;
    this.#startWorker(slot);
    this.#slots.push(slot);
    return slot;
  }

  /** Gives `slot` a new worker; messages from any earlier worker are ignored. */
  #startWorker(slot: Slot): void {
    const worker = new Worker(ISOLATE_WORKER_URL, {
      type: "module",
      name: "sync-isolate",
      deno: { permissions: "none" },
    } as WorkerOptions);
    slot.worker = worker;
    slot.ready = new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        if (slot.worker !== worker) return;
        if (event.data.type === "ready") resolve();
        else this.#onMessage(slot, event.data);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        if (slot.worker !== worker) return;
        const error = new HandlerFailedError(`An isolate worker failed: ${event.message}`);
        reject(error);
        slot.active?.reject(error);
        this.#replace(slot);
      };
      quickJSWasmModule().then(
        (wasmModule) => worker.postMessage({ type: "init", wasmModule } satisfies ToWorker),
        reject,
      );
    });
    // A failed start is reported to the call that awaits `ready`, not as an unhandled rejection.
    slot.ready.catch(() => {});
  }

  #acquire(): Promise<Slot> {
    const free = this.#slots.find((slot) => !slot.busy);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    if (this.#slots.length < this.#size) return Promise.resolve(this.#newSlot());
    return new Promise((resolve) => this.#queue.push(resolve));
  }

  #release(slot: Slot): void {
    slot.active = undefined;
    const next = this.#queue.shift();
    if (next) next(slot);
    else slot.busy = false;
  }

  #replace(slot: Slot): void {
    slot.worker.terminate();
    slot.active = undefined;
    this.#replaced++;
    if (!this.#closed) this.#startWorker(slot);
  }

  #run(slot: Slot, message: CallMessage | ProbeMessage, hooks: CallHooks): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const limits = message.limits;
      const timer = setTimeout(() => {
        // The worker did not answer within its own deadline plus grace: it is
        // stuck where the interrupt handler cannot reach. Replace it.
        const what = message.type === "call"
          ? `Handler ${message.handler}`
          : `register() in ${message.sourceName}`;
        active.reject(
          new HandlerTimeoutError(
            `${what} did not finish within ${limits.timeoutMs} ms; its isolate was terminated`,
          ),
        );
        this.#replace(slot);
      }, limits.timeoutMs + limits.workerGraceMs);
      const cancel = hooks.cancel;
      const onCancel = () => {
        if (active.finished) return;
        // The worker may be anywhere in the handler, even in a loop that never
        // yields: terminating it is the one way to be sure it does nothing more.
        active.reject(cancelled(message.type === "call" ? message.handler : message.sourceName));
        this.#replace(slot);
      };
      const finish = () => {
        clearTimeout(timer);
        cancel?.removeEventListener("abort", onCancel);
        active.finished = true;
        active.ended?.abort(CALL_ENDED);
        if (slot.active === active) slot.active = undefined;
      };
      const active: Active = {
        callId: message.callId,
        hooks,
        limits,
        inFlight: 0,
        inFlightBytes: 0,
        finished: false,
        resolve: (json) => {
          finish();
          resolve(json);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      };
      slot.active = active;
      cancel?.addEventListener("abort", onCancel, { once: true });
      this.#post(slot, message);
      if (message.type === "call" && message.ahead) {
        this.#readAhead(slot, active, message.ahead).catch(() => {/* the worker is gone */});
      }
    });
  }

  /**
   * Makes a call's reads ahead, together, and sends the worker their answers
   * in one message once all are in. A read that fails, or whose answer is
   * over its limit, is sent as `null`: the worker then asks for it as for
   * any other read, and the host's answer (or error) is the one the handler
   * sees.
   */
  async #readAhead(slot: Slot, active: Active, reads: ReadAhead[]): Promise<void> {
    const read = active.hooks.readAhead!;
    const values = await Promise.all(reads.map(async ({ fn, args }) => {
      try {
        const json = JSON.stringify(await read(fn, JSON.parse(args), endedSignal(active)) ?? null);
        const limit = active.hooks.answerLimit?.(fn) ?? active.limits.maxHostValueBytes;
        return json.length > limit ? null : json;
      } catch {
        return null;
      }
    }));
    if (slot.active !== active) return;
    this.#post(slot, { type: "ahead", callId: active.callId, values });
  }

  #post(slot: Slot, message: ToWorker): void {
    this.#sent++;
    slot.worker.postMessage(message);
  }

  #onMessage(slot: Slot, message: FromWorker): void {
    this.#received++;
    const active = slot.active;
    if (!active || !("callId" in message) || message.callId !== active.callId) return;
    switch (message.type) {
      case "log":
        active.hooks.log?.(message.level, message.text, message.notice === true);
        return;
      case "host":
        this.#answerHost(slot, active, message.requestId, message.fn, message.args);
        return;
      case "done":
        if (message.reads) active.hooks.readsMade?.(message.reads);
        if (message.consoleDropped) active.hooks.consoleDropped?.(message.consoleDropped);
        if (message.error) active.reject(toDomainError(message.error));
        else active.resolve(message.value ?? "null");
        if (message.fatal) this.#replace(slot);
        return;
    }
  }

  async #answerHost(
    slot: Slot,
    active: Active,
    requestId: number,
    fn: HostFunctionName,
    args: string,
  ): Promise<void> {
    let reply: ToWorker;
    const limits = active.limits;
    const bytes = hostCallBytes(fn, args.length, limits);
    // The worker lets host calls out within these limits; the host holds it
    // to them rather than trust it, so one call's host work stays bounded.
    if (
      active.inFlight > 0 &&
      (active.inFlight >= limits.maxHostCallsInFlight ||
        active.inFlightBytes + bytes > limits.maxHostBytesInFlight)
    ) {
      const refused = new RateLimitedError(
        `${fn}() was refused: the call already has ${active.inFlight} host calls ` +
          `(${active.inFlightBytes} bytes) in flight; the limits are ${limits.maxHostCallsInFlight} ` +
          `calls and ${limits.maxHostBytesInFlight} bytes`,
      );
      reply = { type: "host-result", callId: active.callId, requestId, error: crossError(refused) };
      if (slot.active === active) this.#post(slot, reply);
      return;
    }
    active.inFlight++;
    active.inFlightBytes += bytes;
    try {
      const value = await active.hooks.host(fn, JSON.parse(args), endedSignal(active));
      const json = JSON.stringify(value ?? null);
      const limit = active.hooks.answerLimit?.(fn) ?? limits.maxHostValueBytes;
      if (json.length > limit) {
        throw new PayloadTooLargeError(
          `${fn}() answered ${json.length} bytes of JSON; the limit is ${limit}`,
        );
      }
      reply = { type: "host-result", callId: active.callId, requestId, value: json };
    } catch (error) {
      reply = { type: "host-result", callId: active.callId, requestId, error: crossError(error) };
    } finally {
      active.inFlight--;
      active.inFlightBytes -= bytes;
    }
    if (slot.active === active) this.#post(slot, reply);
  }
}

/** The error of a call its caller called off. */
function cancelled(what: string): CancelledError {
  return new CancelledError(
    `The call of ${what} was cancelled by its caller; nothing it did was committed`,
  );
}

/** Turns any thrown value into `{ name, message }` for the isolate. */
function crossError(error: unknown): CrossedError {
  if (error instanceof SyncError) return { name: error.name, message: error.message };
  if (error instanceof Error) return { name: "HostError", message: error.message };
  return { name: "HostError", message: String(error) };
}

const DOMAIN_ERRORS: Record<string, new (message: string) => SyncError> = {
  HandlerTimeoutError,
  HandlerResourceError,
  PayloadTooLargeError,
  InvalidValueError,
};

function toDomainError(crossed: CrossedError): SyncError {
  const Class = Object.hasOwn(DOMAIN_ERRORS, crossed.name)
    ? DOMAIN_ERRORS[crossed.name]
    : undefined;
  if (Class) return new Class(crossed.message);
  const failed = new HandlerFailedError(crossed.message);
  if (typeof crossed.thrown === "string") failed.thrown = crossed.thrown.slice(0, 100);
  return failed;
}
