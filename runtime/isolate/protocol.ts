/**
 * Messages between the host and an isolate worker. Everything crosses as
 * structured-clone data; values from or to handler code cross as JSON text.
 *
 * @module
 */
import type { HandlerLimits } from "../limits.ts";
import type { Occasion } from "../extension_api/service.ts";

/**
 * The version of the extension API the isolate serves. Re-exported here
 * because workers import this module and no other from the runtime.
 */
export { API_VERSION } from "../extension_api/service.ts";

/**
 * Cuts text visibly, the way receipts are cut. Re-exported here for the
 * worker, which cuts a console line longer than its limit before sending it.
 */
export { cutText } from "../internal/cut_text.ts";

/** The specifier the isolate's module loader serves; nothing else may be imported. */
export const SERVICE_API_SPECIFIER = "@sync/extension-api/service";

/** The host functions handler code may reach, by the name the shim sends. */
export const HOST_FUNCTIONS = [
  "memory.list",
  "memory.record",
  "memory.content",
  "memory.write",
  "memory.remove",
  "work.order",
  "work.state",
  "net.fetch",
  "account.list",
  "account.read",
  "account.parseMail",
  "account.parseCalendar",
  "account.fetch",
] as const;

/** One host function name. */
export type HostFunctionName = typeof HOST_FUNCTIONS[number];

/**
 * The host functions handler code calls with more than one argument: their
 * arguments cross as one array, in order (`account.parseCalendar(paths,
 * window)` crosses as `[paths, window]`). Every other function takes one.
 */
export const SPREAD_ARGUMENTS: readonly HostFunctionName[] = ["account.parseCalendar"];

/**
 * The host functions that only read project memory: made before any host
 * call that changes something, one may be read ahead (see {@linkcode ReadAhead}).
 */
export const READ_FUNCTIONS: readonly HostFunctionName[] = [
  "memory.list",
  "memory.record",
  "memory.content",
];

/**
 * A read the host makes beside a call, as the call starts, because the
 * handler began its last calls with it: its answer is waiting in the worker
 * when the handler asks, so the read does not cross to the host and back.
 * Handler code sees nothing of it but the time saved.
 */
export interface ReadAhead {
  /** One of {@linkcode READ_FUNCTIONS}. */
  fn: HostFunctionName;
  /** JSON text of the argument, as the worker encodes it; a call matches it exactly. */
  args: string;
}

/** How many reads one call is given ahead at most. */
export const MAX_READS_AHEAD = 4;

/** The longest argument, as JSON text, of a read that may be read ahead. */
export const MAX_READ_AHEAD_ARGS = 1024;

/**
 * What one host call counts against `maxHostBytesInFlight` while the host
 * performs it: its argument's JSON and, for `net.fetch` and
 * `account.fetch`, the body it may bring back. The worker lets calls out by it and the host checks the same.
 *
 * @param fn The host function called.
 * @param argsLength The length of its argument's JSON text.
 * @param limits The call's limits.
 */
export function hostCallBytes(
  fn: string,
  argsLength: number,
  limits: Pick<HandlerLimits, "maxFetchBytes">,
): number {
  return argsLength + (fn === "net.fetch" || fn === "account.fetch" ? limits.maxFetchBytes : 0);
}

/** Console levels routed to the host log. */
export const CONSOLE_LEVELS = ["log", "info", "warn", "error", "debug"] as const;

/** One console level, such as `warn`. */
export type ConsoleLevel = typeof CONSOLE_LEVELS[number];

/** An error as it crosses: a name and a message, never an object graph. */
export interface CrossedError {
  /** The error's class name, such as `HandlerTimeoutError` or `TypeError`. */
  name: string;
  /** Its message. */
  message: string;
  /**
   * The name of the Error the handler's code threw, when it threw one and the
   * crossing names it otherwise (`HandlerFailedError`): a task runner reads a
   * handler's `TransientError` by it.
   */
  thrown?: string;
}

/** Host → worker: start with the compiled QuickJS module. */
export interface InitMessage {
  /** Tells the message apart from the other {@linkcode ToWorker} messages. */
  type: "init";
  /**
   * QuickJS compiled once by the host and shared by every worker, so a new
   * worker instantiates it rather than compiling it again.
   */
  wasmModule: WebAssembly.Module;
}

/** Host → worker: run one handler. */
export interface CallMessage {
  /** Tells the message apart from the other {@linkcode ToWorker} messages. */
  type: "call";
  /**
   * The host's number for this call, unique within its pool. Every message
   * about the call carries it, so the host can drop late messages of a call
   * it has already given up on.
   */
  callId: number;
  /** The service module's source text. */
  source: string;
  /** Name the module is evaluated under (for stack traces). */
  sourceName: string;
  /** The package the handler belongs to. */
  packageId: string;
  /** The handler's name, such as `issues.poll`: the key `register()` returned it under. */
  handler: string;
  /** The payload as JSON text. */
  payload: string;
  /** Why the handler is called; it is handed the occasion as its second argument. */
  occasion: Occasion;
  /** The limits the worker enforces on this call: time, memory, stack, host calls, sizes. */
  limits: HandlerLimits;
  /**
   * The host's time as the call began (ms since the epoch): the handler's
   * `Date` reads the host's clock, going on from there, so a host with a
   * clock of its own (a test's) runs its handlers at its time too. The
   * worker's clock when absent.
   */
  now?: number;
  /**
   * The reads the host makes beside the call; their answers follow in an
   * {@linkcode AheadMessage}. A host call that matches one, made before any
   * call that is not a read, waits for that answer instead of being sent.
   */
  ahead?: ReadAhead[];
  /**
   * For background work: a flag in memory shared with the host, 1 while a
   * person's request goes first. The handler's code pauses on it (at QuickJS's
   * interrupt checks, 100 ms at most at a time) and goes on when it is 0.
   */
  yieldTo?: Int32Array;
}

/**
 * Host → worker: load a service module and call its `register()`, calling no
 * handler; the worker answers a {@linkcode ProbeReport} as JSON text. This is
 * how `deno task check` compares what a module returns with what its manifest
 * declares, in the same isolate that runs handlers.
 */
export interface ProbeMessage {
  /** Tells the message apart from the other {@linkcode ToWorker} messages. */
  type: "probe";
  /**
   * The host's number for this call, unique within its pool. Every message
   * about the call carries it, so the host can drop late messages of a call
   * it has already given up on.
   */
  callId: number;
  /** The service module's source text. */
  source: string;
  /** Name the module is evaluated under (for stack traces). */
  sourceName: string;
  /** The package the module belongs to. */
  packageId: string;
  /** The limits loading the module and calling `register()` run under. */
  limits: HandlerLimits;
}

/** What a probe found out about a service module. */
export interface ProbeReport {
  /** `typeof` the module's default export, or `"missing"` when it has none. */
  register: string;
  /** What `register()` returned: `"object"`, `"null"`, `"array"` or its `typeof`; absent when it was not called or threw. */
  returned?: string;
  /** When `register()` returned an object: its own keys, each with `typeof` its value. */
  handlers?: { name: string; type: string }[];
  /**
   * When `register()` returned an object: its prototype, `"plain"` for
   * `Object.prototype`, `"null"`, or else its constructor's name (`"object"`
   * when it has none).
   */
  prototype?: string;
  /**
   * Why loading the module or calling `register()` failed, and where in the
   * module (from 1) when the error's stack says.
   */
  failed?: { stage: "load" | "register"; error: CrossedError; line?: number; column?: number };
}

/** Host → worker: the answer to one host function call. */
export interface HostResultMessage {
  /** Tells the message apart from the other {@linkcode ToWorker} messages. */
  type: "host-result";
  /** The call whose handler code made the request. */
  callId: number;
  /** The {@linkcode HostRequestMessage.requestId} this answers. */
  requestId: number;
  /** JSON text of the value, when it succeeded. */
  value?: string;
  /** Why the host function failed; handler code sees it thrown, with this name and message. */
  error?: CrossedError;
}

/** Host → worker: the answers of a call's {@linkcode CallMessage.ahead} reads, in their order. */
export interface AheadMessage {
  /** Tells the message apart from the other {@linkcode ToWorker} messages. */
  type: "ahead";
  /** The call the reads were made for. */
  callId: number;
  /**
   * JSON text of each read's value, or `null` where the read failed or its
   * answer was over its limit: a host call that matches it is then sent to
   * the host after all, which answers it as it answers any.
   */
  values: (string | null)[];
}

/** Everything the host sends. */
export type ToWorker =
  | InitMessage
  | CallMessage
  | ProbeMessage
  | HostResultMessage
  | AheadMessage;

/** Worker → host: ready to take calls. */
export interface ReadyMessage {
  /** Tells the message apart from the other {@linkcode FromWorker} messages. */
  type: "ready";
}

/** Worker → host: handler code called a host function. */
export interface HostRequestMessage {
  /** Tells the message apart from the other {@linkcode FromWorker} messages. */
  type: "host";
  /** The call whose handler code made the request. */
  callId: number;
  /**
   * The worker's number for this request within the call; the answer carries
   * it back, since handler code may await several host functions at once.
   */
  requestId: number;
  /** The host function called, such as `memory.write`. */
  fn: HostFunctionName;
  /** JSON text of the argument. */
  args: string;
}

/** Worker → host: a console line. */
export interface LogMessage {
  /** Tells the message apart from the other {@linkcode FromWorker} messages. */
  type: "log";
  /** The call whose handler code wrote the line. */
  callId: number;
  /** The console method called, such as `warn`. */
  level: ConsoleLevel;
  /** The line: the arguments joined by spaces, non-strings as JSON, cut to 4,096 characters. */
  text: string;
  /** The line is the worker's word that the handler's further lines are dropped, not the handler's. */
  notice?: true;
}

/** Worker → host: the call ended. */
export interface DoneMessage {
  /** Tells the message apart from the other {@linkcode FromWorker} messages. */
  type: "done";
  /** The call that ended. */
  callId: number;
  /** JSON text of the handler's answer (or of the {@linkcode ProbeReport}), when it succeeded. */
  value?: string;
  /**
   * Why the call failed. The host turns a known name (such as
   * `HandlerTimeoutError`) into that domain error, and any other into
   * `HandlerFailedError`.
   */
  error?: CrossedError;
  /** The worker's QuickJS instance is unusable (Wasm abort): replace the worker. */
  fatal?: boolean;
  /**
   * The reads the call made before any host call that is not a read, first
   * made first, at most {@linkcode MAX_READS_AHEAD}, with arguments of at most
   * {@linkcode MAX_READ_AHEAD_ARGS} characters: what the host may read ahead
   * of the handler's next calls.
   */
  reads?: ReadAhead[];
  /** How many console lines the handler wrote past its line budget, which were never sent. */
  consoleDropped?: number;
}

/** Everything a worker sends. */
export type FromWorker = ReadyMessage | HostRequestMessage | LogMessage | DoneMessage;
