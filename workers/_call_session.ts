/**
 * One call in an isolate worker: the module loaded in its fresh context,
 * `register()` and the handler called (or, for a probe, only `register()`),
 * the handler's host calls let out to the host within the call's limits or
 * answered from reads made ahead, its console lines within their budget, and
 * what stopped it, named in the words the host passes on.
 *
 * Private to `workers/`: its exports are marked `@ignore` for `deno doc`,
 * since they speak of QuickJS's own types, which no public entry names.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import { REFUSED_MARK } from "./_service_shim.ts";
import { type Engine, type FreshContext, serviceModule } from "./_engine.ts";
import {
  type CallMessage,
  type ConsoleLevel,
  type CrossedError,
  cutText,
  type FromWorker,
  HOST_FUNCTIONS,
  hostCallBytes,
  type HostFunctionName,
  type HostResultMessage,
  MAX_READ_AHEAD_ARGS,
  MAX_READS_AHEAD,
  type ProbeMessage,
  type ProbeReport,
  READ_FUNCTIONS,
  type ReadAhead,
} from "../runtime/isolate/protocol.ts";

/**
 * Work a worker runs in a fresh QuickJS context: a handler call, or a probe of `register()`.
 *
 * @ignore
 */
export type Job = CallMessage | ProbeMessage;

/**
 * A limit a call reached: its heap's growth cap, or its deadline.
 *
 * @ignore
 */
export type LimitReached = "memory" | "time";

/**
 * How many promise jobs run between two looks at the call's limits. A job
 * that runs long is stopped by the interrupt handler; a queue of short jobs
 * that never drains is stopped here, at most this many jobs past the limit.
 */
const JOBS_PER_TURN = 1024;

/**
 * Sends one message to the host.
 *
 * @ignore
 */
export function send(message: FromWorker): void {
  self.postMessage(message);
}

/** A host call handler code made: its argument is kept as QuickJS's own string until it is sent. */
interface HostRequest {
  requestId: number;
  fn: HostFunctionName;
  args: QuickJSHandle;
  /** What it counts against the call's bytes in flight. */
  bytes: number;
}

/** One of the call's reads ahead: its answer once it arrives, and the host call waiting for it. */
interface AheadEntry {
  read: ReadAhead;
  /** JSON text of the value; null when the host could not read it ahead; absent until it arrives. */
  value?: string | null;
  /** The request that took it: a host call waiting for (or given) this answer. */
  takenBy?: number;
}

/**
 * Why a call stopped, told apart so the host can name it.
 *
 * @ignore
 */
export class CallStop extends Error {
  /** Where in the module the error was thrown, when its stack says. */
  readonly place?: SourcePlace;
  /**
   * @param crossed The error as the host is told it.
   * @param place Where in the module it was thrown, when known.
   */
  constructor(readonly crossed: CrossedError, place?: SourcePlace) {
    super(crossed.message);
    this.place = place;
  }
}

/**
 * A line and column (from 1) in the service module.
 *
 * @ignore
 */
export interface SourcePlace {
  /** The line, from 1. */
  line: number;
  /** The column, from 1. */
  column: number;
}

/**
 * V8's own stack overflow, thrown through the WebAssembly frames of QuickJS.
 * QuickJS measures its stack cap in WebAssembly memory while its frames also
 * use the worker's native stack; the default cap is set low enough that
 * QuickJS stops first (docs/limits.md), and this catches the rest.
 *
 * @ignore
 */
export function isWorkerStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /Maximum call stack size exceeded/.test(error.message);
}

/**
 * The error a call whose stack ran out ends with; `stage` says what was running.
 *
 * @ignore
 */
export function stackOverflow(call: Job, stage: string): CrossedError {
  return {
    name: "HandlerResourceError",
    message: `${describeStage(call, stage)} overflowed its stack (the worker's own stack ran ` +
      `out before the ${call.limits.stackBytes / 1024} KiB limit) and was stopped`,
  };
}

/**
 * What a call was running, in the words its errors use: `stage` is `load`
 * (the module's top level), `register`, `handler` or `result` (its answer).
 */
function describeStage(call: Job, stage: string): string {
  switch (stage) {
    case "load":
      return `Loading ${call.sourceName}`;
    case "register":
      return `register() in ${call.sourceName}`;
    case "handler":
      return `Handler ${call.type === "call" ? call.handler : ""}`;
    case "result":
      return `The answer of ${call.type === "call" ? call.handler : ""}`;
    default:
      return `The isolate (${stage})`;
  }
}

/**
 * The state of one call: its QuickJS context, its host requests, its console budget.
 *
 * @ignore
 */
export class CallSession {
  #call: Job;
  #vm: QuickJSContext;
  #runtime: QuickJSRuntime;
  #deadline: number;
  #nextRequest = 1;
  #outstanding = 0;
  #hostCalls = 0;
  #consoleLines = 0;
  #wake: (() => void) | undefined;
  #answered: { requestId: number; message: HostResultMessage }[] = [];
  /** Host calls made and not yet sent, first made first. */
  #held: HostRequest[] = [];
  /** Host calls sent and not yet answered: their bytes, by request. */
  #inFlight = new Map<number, number>();
  #inFlightBytes = 0;
  #promises = new Map<number, ReturnType<QuickJSContext["newPromise"]>>();
  /** Host calls sent and not yet answered: what to do with each answer, by request. */
  #waiting = new Map<number, (message: HostResultMessage) => void>();
  #owned: QuickJSHandle[] = [];
  /** The reads the host is making beside the call, in the order of their answers. */
  #ahead: AheadEntry[];
  /** No host call but reads has been made: a read may still be answered ahead, and is learnt. */
  #readsOnly = true;
  #reads: ReadAhead[] = [];

  #limitReached: () => LimitReached | undefined;
  #engine: Engine;
  #fresh: FreshContext;
  #stage = "load";
  #broken = false;
  #failed = false;

  /** What the call is running now, as {@linkcode describeStage} names it. */
  get stage(): string {
    return this.#stage;
  }

  /** The worker's own stack ran out inside QuickJS: the instance must be dropped, not disposed. */
  get broken(): boolean {
    return this.#broken;
  }

  /** A probe's module failed to load or `register()` threw: the runtime is not reused. */
  get failed(): boolean {
    return this.#failed;
  }

  /**
   * @param call The call or probe to run.
   * @param fresh The context it runs in, which no call has run in before.
   * @param runtime The runtime the context belongs to.
   * @param engine The runtime's encoder.
   * @param deadline When the call's time is up (`Date.now()` ms).
   * @param limitReached The first of the call's limits reached, if any; looked at between steps.
   */
  constructor(
    call: Job,
    fresh: FreshContext,
    runtime: QuickJSRuntime,
    engine: Engine,
    deadline: number,
    limitReached: () => LimitReached | undefined,
  ) {
    this.#limitReached = limitReached;
    this.#engine = engine;
    this.#call = call;
    this.#fresh = fresh;
    this.#vm = fresh.vm;
    this.#runtime = runtime;
    this.#deadline = deadline;
    this.#ahead = (call.type === "call" ? call.ahead ?? [] : []).map((read) => ({ read }));
  }

  /** The host's number for the call. */
  get callId(): number {
    return this.#call.callId;
  }

  /** The host's answer to one of the call's host calls. */
  onHostResult(message: HostResultMessage): void {
    this.#waiting.get(message.requestId)?.(message);
  }

  /**
   * The reads the call made before any host call that is not a read, first
   * made first, at most {@linkcode MAX_READS_AHEAD}: what the host may read
   * ahead of the handler's next call.
   */
  get reads(): ReadAhead[] {
    return this.#reads;
  }

  /** The answers of the call's reads ahead, in their order; `null` where there is none. */
  onAhead(values: (string | null)[]): void {
    this.#ahead.forEach((entry, i) => {
      if (entry.value !== undefined) return;
      entry.value = typeof values[i] === "string" ? values[i] : null;
      if (entry.takenBy !== undefined) this.#answerAhead(entry);
    });
  }

  /**
   * Answers the host call that took a read ahead: with the value read, or,
   * when there is none, by sending the call to the host after all.
   */
  #answerAhead(entry: AheadEntry): void {
    const requestId = entry.takenBy!;
    if (typeof entry.value === "string") {
      const message: HostResultMessage = {
        type: "host-result",
        callId: this.#call.callId,
        requestId,
        value: entry.value,
      };
      this.#answered.push({ requestId, message });
      this.#wake?.();
      return;
    }
    const { fn, args } = entry.read;
    this.#held.push({
      requestId,
      fn,
      args: this.#vm.newString(args),
      bytes: hostCallBytes(fn, args.length, this.#call.limits),
    });
    this.#letOut();
  }

  /** Disposes every handle the call still holds; QuickJS refuses to free a runtime with live ones. */
  dispose(): void {
    for (const request of this.#held.splice(0)) request.args.dispose();
    for (const deferred of this.#promises.values()) deferred.dispose();
    this.#promises.clear();
    for (const handle of this.#owned) if (handle.alive) handle.dispose();
    this.#owned = [];
  }

  #own<T extends QuickJSHandle>(handle: T): T {
    this.#owned.push(handle);
    return handle;
  }

  /** Evaluates the module in the fresh context; returns its default export. */
  async #load(): Promise<QuickJSHandle> {
    this.#stage = "load";
    const vm = this.#vm;
    const own = <T extends QuickJSHandle>(handle: T) => this.#own(handle);
    const evaluated = this.#unwrap(
      vm.evalCode(this.#call.source, this.#call.sourceName, { type: "module" }),
      "load",
    );
    const namespace = await this.#settle(evaluated, "load");
    return own(vm.getProp(namespace, "default"));
  }

  /**
   * What the runtime's module loader answers while this call runs. The
   * service module takes the binding off the global object in its first
   * statements, which run before any package code can look.
   */
  loadModule(name: string): { value: string } | { error: Error } {
    return serviceModule(this.#fresh, name);
  }

  /**
   * Turns a value of this context into JSON text with the runtime's encoder:
   * `{ text }`, or `{ refused }` saying why JSON cannot carry it, or `{ error }`
   * for what a getter or `toJSON` of the value threw (or QuickJS's own stop).
   */
  #encodeValue(
    value: QuickJSHandle,
    label: string,
  ): { text: QuickJSHandle } | { refused: string } | { error: QuickJSHandle } {
    const vm = this.#vm;
    const labelHandle = vm.newString(label);
    const result = vm.callFunction(
      this.#engine.encode,
      vm.undefined,
      value,
      labelHandle,
      this.#fresh.objectProto,
    );
    labelHandle.dispose();
    if (result.error) return { error: result.error };
    const text = vm.getString(result.value);
    if (text.startsWith(REFUSED_MARK)) {
      result.value.dispose();
      return { refused: text.slice(REFUSED_MARK.length) };
    }
    return { text: result.value };
  }

  /**
   * An error of this context with the name and message of `error`, which may
   * belong to the encoder's context: package code is never handed an object
   * of a context that outlives its call.
   */
  #localError(error: QuickJSHandle): QuickJSHandle {
    const crossed = this.#describeRaw(error);
    if (crossed.name === "InternalError") this.#failed = true;
    return this.#newError(crossed);
  }

  /** A `TypeError` of this context. */
  #newTypeError(message: string): QuickJSHandle {
    const vm = this.#vm;
    const text = vm.newString(message);
    const made = vm.callFunction(this.#fresh.typeError, vm.undefined, text);
    text.dispose();
    if (made.error) return made.error;
    return made.value;
  }

  /** JSON text parsed into a value of this context, with its own `JSON.parse`. */
  #decodeText(text: string): ReturnType<QuickJSContext["callFunction"]> {
    const vm = this.#vm;
    const handle = vm.newString(text);
    const result = vm.callFunction(this.#fresh.parse, vm.undefined, handle);
    handle.dispose();
    return result;
  }

  /** Calls `register()` and settles what it returned. */
  async #register(register: QuickJSHandle): Promise<QuickJSHandle> {
    this.#stage = "register";
    const registered = this.#unwrap(
      this.#vm.callFunction(register, this.#vm.undefined),
      "register",
    );
    return await this.#settle(registered, "register");
  }

  /**
   * Loads the module and calls `register()` without calling any handler;
   * returns a {@linkcode ProbeReport} as JSON text. Failures of the module's
   * own code are part of the report, not errors of the probe.
   */
  async probe(): Promise<string> {
    const vm = this.#vm;
    const report: ProbeReport = { register: "missing" };
    try {
      const register = await this.#load();
      const type = vm.typeof(register);
      report.register = type === "undefined" ? "missing" : type;
      if (type !== "function") return JSON.stringify(report);
      const handlers = await this.#register(register);
      const returnedType = vm.typeof(handlers);
      if (returnedType !== "object") {
        report.returned = returnedType;
        return JSON.stringify(report);
      }
      const entries = this.#entriesOf(handlers);
      report.returned = entries.kind;
      if (entries.kind === "object") {
        report.handlers = entries.handlers;
        report.prototype = entries.prototype;
      }
    } catch (error) {
      this.#failed = true;
      const stage = this.#stage === "register" ? "register" : "load";
      if (isWorkerStackOverflow(error)) {
        this.#broken = true;
        report.failed = { stage, error: stackOverflow(this.#call, stage) };
      } else if (error instanceof CallStop) {
        report.failed = { stage, error: error.crossed, ...error.place };
      } else {
        throw error;
      }
    }
    return JSON.stringify(report);
  }

  /** Evaluates the module, calls the handler, settles its answer; returns JSON text. */
  async run(): Promise<string> {
    const vm = this.#vm;
    const own = <T extends QuickJSHandle>(handle: T) => this.#own(handle);
    const call = this.#call as CallMessage;
    const register = await this.#load();
    if (vm.typeof(register) !== "function") {
      throw this.#stop(
        "HandlerFailedError",
        `${this.#call.sourceName} has no default export register(): export default function register() { return { … } }`,
      );
    }
    const handlers = await this.#register(register);
    const isObject = vm.typeof(handlers) === "object" && !vm.sameValue(handlers, vm.null);
    // Only a handler the answer holds as its own: one on its prototype (or
    // `toString`, which every object inherits) is not what the module returned.
    const handler = isObject ? this.#ownValue(handlers, call.handler) : vm.undefined;
    if (vm.typeof(handler) !== "function") {
      const returned = isObject ? this.#keysOf(handlers) : `${vm.typeof(handlers)}`;
      throw this.#stop(
        "HandlerFailedError",
        `register() did not return handler "${call.handler}" (it returned ${returned})`,
      );
    }

    const payload = this.#unwrap(this.#decodeText(call.payload), "payload");
    const occasion = this.#unwrap(this.#decodeText(JSON.stringify(call.occasion)), "occasion");
    this.#stage = "handler";
    const returned = this.#unwrap(
      vm.callFunction(handler, vm.undefined, payload, occasion),
      "handler",
    );
    const answer = await this.#settle(returned, "handler");

    if (vm.typeof(answer) === "undefined") return "null";
    this.#stage = "result";
    const encoded = this.#encodeValue(answer, `${call.handler}() result`);
    if ("refused" in encoded) throw this.#stop("InvalidValueError", encoded.refused);
    if ("error" in encoded) throw new CallStop(this.#describe(own(encoded.error), "result"));
    // A getter or toJSON the encoder ran may have caught the limit it reached.
    const reached = this.#limitReached();
    if (reached) throw new CallStop(this.#limitError(reached, "result"));
    const text = vm.getString(own(encoded.text));
    if (text.length > this.#call.limits.maxValueBytes) {
      throw this.#stop(
        "PayloadTooLargeError",
        `${call.handler}() returned ${text.length} bytes of JSON; the limit is ${call.limits.maxValueBytes}`,
      );
    }
    return text;
  }

  /** The value of `object`'s own data property `name`, or `undefined`; never an inherited one. */
  #ownValue(object: QuickJSHandle, name: string): QuickJSHandle {
    const vm = this.#vm;
    const nameHandle = vm.newString(name);
    const found = vm.callFunction(this.#engine.ownValue, vm.undefined, object, nameHandle);
    nameHandle.dispose();
    return this.#unwrap(found, "register");
  }

  /**
   * What `register()` returned, told apart, with each own key's `typeof` for
   * an object, and its prototype: told by the encoder's context, whose
   * built-ins package code cannot replace.
   */
  #entriesOf(handle: QuickJSHandle): {
    kind: string;
    handlers?: { name: string; type: string }[];
    prototype?: string;
  } {
    const vm = this.#vm;
    const described = this.#unwrap(
      vm.callFunction(this.#engine.describe, vm.undefined, handle, this.#fresh.objectProto),
      "register",
    );
    return JSON.parse(vm.getString(described));
  }

  #keysOf(handle: QuickJSHandle): string {
    const keys = this.#vm.evalCode("(o) => Object.keys(o).join(', ')");
    if (keys.error) {
      keys.error.dispose();
      return "an object";
    }
    const joined = this.#vm.callFunction(keys.value, this.#vm.undefined, handle);
    keys.value.dispose();
    if (joined.error) {
      joined.error.dispose();
      return "an object";
    }
    const text = this.#vm.getString(joined.value);
    joined.value.dispose();
    return text ? `{ ${text} }` : "an empty object";
  }

  /** A call of the binding the service module holds: a host function, by name. */
  onBinding(nameHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle {
    return this.#onHostCall(this.#vm.getString(nameHandle), argsHandle);
  }

  /** How many console lines the handler wrote past its budget, which were not sent. */
  get consoleDropped(): number {
    return Math.max(0, this.#consoleLines - this.#call.limits.maxConsoleLines);
  }

  /** A console line: sent to the host within the call's line budget. */
  onConsole(
    level: ConsoleLevel,
    args: QuickJSHandle[],
  ): QuickJSHandle | { error: QuickJSHandle } {
    const vm = this.#vm;
    const formatted = vm.callFunction(this.#engine.format, vm.undefined, ...args);
    if (formatted.error) {
      const error = this.#localError(formatted.error);
      formatted.error.dispose();
      return { error };
    }
    const line = vm.getString(formatted.value);
    formatted.value.dispose();
    this.#consoleLines++;
    if (this.#consoleLines <= this.#call.limits.maxConsoleLines) {
      // Cut visibly: a line that looks whole must be whole.
      const text = cutText(line, this.#call.limits.maxConsoleLineChars);
      send({ type: "log", callId: this.#call.callId, level, text });
    } else if (this.#consoleLines === this.#call.limits.maxConsoleLines + 1) {
      send({
        type: "log",
        callId: this.#call.callId,
        level: "warn",
        notice: true,
        text:
          `console output limit of ${this.#call.limits.maxConsoleLines} lines reached; further lines dropped`,
      });
    }
    return vm.undefined;
  }

  /**
   * A host function call from the shim: refused at once when it is not one
   * the host offers, passes the call's count or is too large; otherwise it is
   * sent to the host, or waits here, in order, while the call has as many
   * host calls or bytes in flight as its limits allow. A waiting call keeps
   * its argument in QuickJS's heap, under the call's memory cap, not in the
   * worker's or the host's.
   */
  #onHostCall(name: string, argsHandle: QuickJSHandle): QuickJSHandle {
    const vm = this.#vm;
    const deferred = vm.newPromise();
    const refuse = (crossed: CrossedError) => {
      const error = this.#newError(crossed);
      deferred.reject(error);
      error.dispose();
      return deferred.handle;
    };
    if (!(HOST_FUNCTIONS as readonly string[]).includes(name)) {
      return refuse({
        name: "PermissionDeniedError",
        message: `${name} is not a function the host offers`,
      });
    }
    if (++this.#hostCalls > this.#call.limits.maxHostCalls) {
      return refuse({
        name: "RateLimitedError",
        message: `one call may make at most ${this.#call.limits.maxHostCalls} host calls`,
      });
    }
    let text: QuickJSHandle;
    if (vm.typeof(argsHandle) === "undefined") {
      text = vm.newString("null");
    } else {
      const encoded = this.#encodeValue(argsHandle, `${name}() argument`);
      if (!("text" in encoded)) {
        const error = "refused" in encoded
          ? this.#newTypeError(encoded.refused)
          : this.#localError(encoded.error);
        if ("error" in encoded) encoded.error.dispose();
        deferred.reject(error);
        error.dispose();
        return deferred.handle;
      }
      text = encoded.text;
    }
    const lengthHandle = vm.getProp(text, "length");
    const length = vm.getNumber(lengthHandle);
    lengthHandle.dispose();
    if (length > this.#call.limits.maxHostValueBytes) {
      text.dispose();
      return refuse({
        name: "PayloadTooLargeError",
        message:
          `${name}() argument is ${length} bytes of JSON; the limit is ${this.#call.limits.maxHostValueBytes}`,
      });
    }
    const fn = name as HostFunctionName;
    // Reads made before anything else may have been read ahead, and are
    // what the host reads ahead of the next call.
    if (this.#readsOnly && !READ_FUNCTIONS.includes(fn)) this.#readsOnly = false;
    const learning = this.#reads.length < MAX_READS_AHEAD;
    const aheadLeft = this.#ahead.some((ahead) => ahead.takenBy === undefined);
    if (this.#readsOnly && length <= MAX_READ_AHEAD_ARGS && (learning || aheadLeft)) {
      const args = vm.getString(text);
      if (learning) this.#reads.push({ fn, args });
      const entry = this.#ahead.find((ahead) =>
        ahead.takenBy === undefined && ahead.read.fn === fn && ahead.read.args === args
      );
      if (entry) {
        text.dispose();
        entry.takenBy = this.#nextRequest++;
        this.#outstanding++;
        this.#promises.set(entry.takenBy, deferred);
        if (entry.value !== undefined) this.#answerAhead(entry);
        return deferred.handle;
      }
    }
    const request: HostRequest = {
      requestId: this.#nextRequest++,
      fn,
      args: text,
      bytes: hostCallBytes(name, length, this.#call.limits),
    };
    this.#outstanding++;
    this.#promises.set(request.requestId, deferred);
    this.#held.push(request);
    this.#letOut();
    return deferred.handle;
  }

  /**
   * Sends waiting host calls to the host, first made first, while the call's
   * calls and bytes in flight stay within its limits. One that needs more
   * bytes than the limit alone is sent when nothing else is in flight.
   */
  #letOut(): void {
    const limits = this.#call.limits;
    while (this.#held.length > 0) {
      const request = this.#held[0];
      const fits = this.#inFlight.size === 0 ||
        (this.#inFlight.size < limits.maxHostCallsInFlight &&
          this.#inFlightBytes + request.bytes <= limits.maxHostBytesInFlight);
      if (!fits) return;
      this.#held.shift();
      const args = this.#vm.getString(request.args);
      request.args.dispose();
      this.#inFlight.set(request.requestId, request.bytes);
      this.#inFlightBytes += request.bytes;
      this.#waiting.set(request.requestId, (message) => {
        this.#answered.push({ requestId: request.requestId, message });
        this.#wake?.();
      });
      send({
        type: "host",
        callId: this.#call.callId,
        requestId: request.requestId,
        fn: request.fn,
        args,
      });
    }
  }

  #newError(crossed: CrossedError): QuickJSHandle {
    const error = this.#vm.newError(crossed.message);
    this.#vm.setProp(error, "name", this.#vm.newString(crossed.name));
    return error;
  }

  /**
   * Resolves the QuickJS promises of host answers that have arrived, and lets
   * out the host calls waiting for the room they leave.
   */
  #deliver(): void {
    for (const { requestId, message } of this.#answered.splice(0)) {
      const deferred = this.#promises.get(requestId);
      this.#promises.delete(requestId);
      this.#waiting.delete(requestId);
      this.#outstanding--;
      this.#inFlightBytes -= this.#inFlight.get(requestId) ?? 0;
      this.#inFlight.delete(requestId);
      if (!deferred) continue;
      if (message.error) {
        const error = this.#newError(message.error);
        deferred.reject(error);
        error.dispose();
      } else {
        const parsed = this.#decodeText(message.value ?? "null");
        if (parsed.error) {
          deferred.reject(parsed.error);
          parsed.error.dispose();
        } else {
          deferred.resolve(parsed.value);
          parsed.value.dispose();
        }
      }
      deferred.dispose();
    }
    this.#letOut();
  }

  /**
   * Runs the job queue until `handle` (a promise or a plain value) settles,
   * waiting for host answers in between; the deadline covers the awaits.
   * What `handle` settled to is taken only once the queue has drained, and
   * only while no limit has been reached: a queue that never drains fails
   * the call at its deadline, however its promises stand.
   */
  async #settle(handle: QuickJSHandle, stage: string): Promise<QuickJSHandle> {
    const vm = this.#vm;
    for (;;) {
      this.#deliver();
      this.#drain(stage);
      const state = vm.getPromiseState(handle);
      if (state.type === "fulfilled") {
        return state.notAPromise ? handle : this.#own(state.value);
      }
      if (state.type === "rejected") {
        const error = this.#own(state.error);
        throw new CallStop(this.#describe(error, stage), this.#placeOf(error));
      }
      if (this.#answered.length > 0) continue;
      if (this.#outstanding === 0) {
        // Nothing in the isolate can settle it: there are no timers, and no
        // host call is out. Waiting would only burn the timeout.
        throw this.#stop(
          "HandlerFailedError",
          `${
            this.#what(stage)
          } returned a promise that never settles (it awaits nothing the host is doing)`,
        );
      }
      const left = this.#deadline - Date.now() + 1;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  /**
   * Runs promise jobs until none is queued, a few at a time, looking at the
   * call's limits between turns; throws the limit once one is reached.
   */
  #drain(stage: string): void {
    for (;;) {
      const reached = this.#limitReached();
      if (reached) throw new CallStop(this.#limitError(reached, stage));
      if (!this.#runtime.hasPendingJob()) return;
      const jobs = this.#runtime.executePendingJobs(JOBS_PER_TURN);
      if (jobs.error) {
        const crossed = this.#describe(jobs.error, stage);
        const place = this.#placeOf(jobs.error);
        jobs.error.dispose();
        throw new CallStop(crossed, place);
      }
    }
  }

  #unwrap(
    result: ReturnType<QuickJSContext["evalCode"]>,
    stage: string,
  ): QuickJSHandle {
    if (result.error) {
      const error = this.#own(result.error);
      throw new CallStop(this.#describe(error, stage), this.#placeOf(error));
    }
    return this.#own(result.value);
  }

  #what(stage: string): string {
    return describeStage(this.#call, stage);
  }

  /** The error of a call that reached `limit` while running `stage`. */
  #limitError(limit: LimitReached, stage: string): CrossedError {
    if (limit === "time") {
      return {
        name: "HandlerTimeoutError",
        message: `${
          this.#what(stage)
        } ran past the ${this.#call.limits.timeoutMs} ms limit and was stopped`,
      };
    }
    return {
      name: "HandlerResourceError",
      message: `${this.#what(stage)} ran out of memory (limit ${
        this.#call.limits.memoryBytes / 1024 / 1024
      } MiB) and was stopped`,
    };
  }

  #stop(name: string, message: string): CallStop {
    return new CallStop({ name, message });
  }

  /**
   * The first place in the service module an exception's stack names
   * (`at register (service/index.js:4:11)`); a syntax error names it in its
   * own frame the same way.
   */
  #placeOf(errorHandle: QuickJSHandle): SourcePlace | undefined {
    const vm = this.#vm;
    try {
      if (vm.typeof(errorHandle) !== "object") return undefined;
      const stack = vm.getProp(errorHandle, "stack");
      const text = vm.typeof(stack) === "string" ? vm.getString(stack) : "";
      stack.dispose();
      const name = this.#call.sourceName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const at = new RegExp(`${name}:(\\d+)(?::(\\d+))?`).exec(text);
      return at ? { line: Number(at[1]), column: Number(at[2] ?? 1) } : undefined;
    } catch {
      return undefined;
    }
  }

  /** Turns a QuickJS exception into a crossed error, naming limits that were hit. */
  #describe(errorHandle: QuickJSHandle, stage: string): CrossedError {
    const { name, message } = this.#describeRaw(errorHandle);
    const reached = this.#limitReached();
    if (reached) return this.#limitError(reached, stage);
    // QuickJS's own limit refuses a single allocation over the cap.
    if (/out of memory/i.test(message)) return this.#limitError("memory", stage);
    if (name === "InternalError" && message === "interrupted") {
      return this.#limitError("time", stage);
    }
    if (/stack overflow|Maximum call stack/i.test(message)) {
      return {
        name: "HandlerResourceError",
        message: `${this.#what(stage)} overflowed its stack (limit ${
          this.#call.limits.stackBytes / 1024
        } KiB) and was stopped`,
      };
    }
    return {
      name: "HandlerFailedError",
      // The thrown Error's own name, for whoever reads failures by name (the task runner).
      ...(name === "Thrown" ? {} : { thrown: name }),
      // A value that is not an Error is said as what it is: `threw "a string"`, `threw null`.
      // An Error is said by its message: what happened, in words; its class
      // name (`TypeError`, `NetworkError`) tells a person nothing more.
      message: name === "Thrown"
        ? `${this.#what(stage)} threw ${message}`
        : `${this.#what(stage)} failed: ${message || `an error named ${name}, with no message`}`,
    };
  }

  /** A QuickJS exception's name and message as they are. */
  #describeRaw(errorHandle: QuickJSHandle): CrossedError {
    const vm = this.#vm;
    let name = "Error";
    let message = "";
    try {
      if (vm.typeof(errorHandle) === "object" && !vm.sameValue(errorHandle, vm.null)) {
        const n = vm.getProp(errorHandle, "name");
        const m = vm.getProp(errorHandle, "message");
        const named = vm.typeof(n) === "string";
        const said = vm.typeof(m) === "string";
        name = named ? vm.getString(n) : "Error";
        message = said ? vm.getString(m) : "";
        n.dispose();
        m.dispose();
        // An object that is not an Error says nothing by itself; it is not read
        // further (its getters would run), only named as what it was.
        if (!named && !said) {
          name = "Thrown";
          message = "an object that is not an Error (it has no name and no message)";
        }
      } else {
        const dumped = vm.dump(errorHandle);
        name = "Thrown";
        message = JSON.stringify(dumped) ?? String(dumped);
      }
    } catch {
      message = "an error that could not be read";
    }
    return { name, message };
  }
}
