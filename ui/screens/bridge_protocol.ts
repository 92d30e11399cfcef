/**
 * The bridge between the app and a package's screen: the messages that
 * cross the `MessageChannel`, and the checks every message passes before it
 * is acted on. Both ends use this file: the app (`screen_bridge.ts`) and the
 * screen runtime served into the frame (`screen_runtime.ts`).
 *
 * 1. When the frame has loaded, the app posts {@linkcode ConnectMessage} to
 *    it with one port of a new channel (`targetOrigin` `"*"`: the frame's
 *    origin is opaque and has no name). From then on only the port is used.
 * 2. The screen sends {@linkcode ScreenRequest}s, each with an id of its own;
 *    the app answers each with one {@linkcode ScreenResponse} carrying that
 *    id, `ok` with a value or not `ok` with an error's name and message.
 * 3. The app sends {@linkcode ProcessEvent}s for processes the screen
 *    started; the screen says once whether `activate(ctx)` ran
 *    ({@linkcode ActivationMessage}).
 *
 * A message the app cannot read is answered with a refusal that says why
 * (`BridgeError`), with its id when it had a readable one and `null`
 * otherwise; nothing a screen sends is thrown into the app.
 *
 * @module
 */

/** The bridge's version; the connect message carries it. */
export const BRIDGE_VERSION = 1;

/** The most characters a message's JSON may have. */
export const MAX_MESSAGE_CHARS = 1024 * 1024;

/** What the app posts to the frame with the screen's port. */
export interface ConnectMessage {
  /** Marks the message as Sync's. */
  sync: "screen-connect";
  /** {@linkcode BRIDGE_VERSION}. */
  version: number;
  /** The extension API's version. */
  apiVersion: string;
  /** The package and project the screen is shown for. */
  screen: { id: string; name: string; project: string };
}

/** The requests a screen may make, and what each takes. */
export interface ScreenMethods {
  /** `ctx.handlers.call(name, payload)`. */
  "handlers.call": { name: string; payload: unknown };
  /** `ctx.memory.list(query)`. */
  "memory.list": { query: Record<string, unknown> };
  /** `ctx.memory.record(key)`. */
  "memory.record": { key: string };
  /** `ctx.memory.content(key)`. */
  "memory.content": { key: string };
  /** `ctx.net.fetch(request)`. */
  "net.fetch": { request: unknown };
  /** `ctx.host.spawn(id, options)`; answers `{ process, pid }`. */
  "host.spawn": {
    id: string;
    args?: string[];
    cwd?: string;
    env?: Record<string, string | null>;
  };
  /** `process.write(text)`. */
  "process.write": { process: number; text: string };
  /** `process.end()`. */
  "process.end": { process: number };
  /** `process.kill()`. */
  "process.kill": { process: number };
}

/** A request's method. */
export type ScreenMethod = keyof ScreenMethods;

/** One request of a screen, as read by {@linkcode readScreenMessage}. */
export type ScreenRequest = {
  [M in ScreenMethod]: { type: "request"; id: number; method: M; params: ScreenMethods[M] };
}[ScreenMethod];

/** The screen's word on its `activate(ctx)`. */
export type ActivationMessage =
  | { type: "activated" }
  | { type: "activation-failed"; message: string };

/** What the app reads from a screen. */
export type ScreenMessage = ScreenRequest | ActivationMessage;

/** An error as it crosses: its name and message. */
export interface BridgeErrorValue {
  /** Such as `MemoryAccessError`, or `BridgeError` for a refused message. */
  name: string;
  /** What went wrong and what to do. */
  message: string;
}

/** The answer to one request. `id` is `null` when the request had no readable id. */
export type ScreenResponse =
  | { type: "response"; id: number; ok: true; value: unknown }
  | { type: "response"; id: number | null; ok: false; error: BridgeErrorValue };

/** Output or the end of a process the screen started. */
export type ProcessEvent =
  | { type: "process-output"; process: number; stream: "stdout" | "stderr"; text: string }
  | { type: "process-exit"; process: number; code: number | null; signal: string | null };

/** What the screen reads from the app. */
export type AppMessage = ScreenResponse | ProcessEvent;

/** A message read, or why it was refused (with the request's id when it had one). */
export type ReadResult<T> =
  | { ok: true; message: T }
  | { ok: false; id: number | null; reason: string };

const METHODS: ReadonlySet<string> = new Set<ScreenMethod>([
  "handlers.call",
  "memory.list",
  "memory.record",
  "memory.content",
  "net.fetch",
  "host.spawn",
  "process.write",
  "process.end",
  "process.kill",
]);

/**
 * Reads a message a screen sent. Checks its shape, its method and each of
 * its parameters, and that it is plain JSON of at most
 * {@linkcode MAX_MESSAGE_CHARS}; never throws.
 *
 * @param data The message's data, as the port delivered it.
 */
export function readScreenMessage(data: unknown): ReadResult<ScreenMessage> {
  try {
    return readChecked(data);
  } catch (error) {
    return { ok: false, id: null, reason: `the message could not be read: ${String(error)}` };
  }
}

function readChecked(data: unknown): ReadResult<ScreenMessage> {
  if (!isObject(data)) return refuse(null, `a message must be an object, got ${kindOf(data)}`);
  const id = Number.isSafeInteger(data.id) && (data.id as number) > 0 ? data.id as number : null;
  const size = jsonSize(data);
  if (size === null) {
    return refuse(id, "a message must be plain JSON (no functions, cycles, or other objects)");
  }
  if (size > MAX_MESSAGE_CHARS) {
    return refuse(id, `a message may have at most ${MAX_MESSAGE_CHARS} characters of JSON`);
  }
  if (data.type === "activated") return { ok: true, message: { type: "activated" } };
  if (data.type === "activation-failed") {
    if (typeof data.message !== "string") return refuse(null, `"message" must be text`);
    return { ok: true, message: { type: "activation-failed", message: data.message } };
  }
  if (data.type !== "request") {
    return refuse(
      id,
      `unknown message type ${JSON.stringify(data.type ?? null)}; a screen sends "request", ` +
        `"activated" or "activation-failed"`,
    );
  }
  if (id === null) return refuse(null, `a request needs "id", a positive whole number`);
  const method = data.method;
  if (typeof method !== "string" || !METHODS.has(method)) {
    return refuse(
      id,
      `unknown method ${JSON.stringify(method ?? null)}; a screen may call ${
        [...METHODS].join(", ")
      }`,
    );
  }
  const params = data.params === undefined ? {} : data.params;
  if (!isObject(params)) return refuse(id, `"params" must be an object`);
  const problem = paramsProblem(method as ScreenMethod, params);
  if (problem) return refuse(id, `${method}: ${problem}`);
  return {
    ok: true,
    message: { type: "request", id, method, params } as ScreenRequest,
  };
}

/** What is wrong with a request's parameters; undefined when nothing is. */
function paramsProblem(method: ScreenMethod, params: Record<string, unknown>): string | undefined {
  switch (method) {
    case "handlers.call":
      return typeof params.name === "string" && params.name !== ""
        ? undefined
        : `"name" must be the name of one of the package's handlers`;
    case "memory.list":
      return params.query === undefined || isObject(params.query)
        ? undefined
        : `"query" must be an object: { kind?, prefix?, limit?, cursor? }`;
    case "memory.record":
    case "memory.content":
      return typeof params.key === "string" ? undefined : `"key" must be a record key, kind/name`;
    case "net.fetch":
      return typeof params.request === "string" || isObject(params.request)
        ? undefined
        : `"request" must be a URL or { url, method?, headers?, body? }`;
    case "host.spawn":
      if (typeof params.id !== "string" || params.id === "") {
        return `"id" must be one of the manifest's host.processes ids`;
      }
      if (
        params.args !== undefined &&
        !(Array.isArray(params.args) && params.args.every((a) => typeof a === "string"))
      ) return `"args" must be a list of strings`;
      if (params.cwd !== undefined && typeof params.cwd !== "string") {
        return `"cwd" must be a folder path`;
      }
      if (
        params.env !== undefined &&
        !(isObject(params.env) &&
          Object.values(params.env).every((v) => v === null || typeof v === "string"))
      ) return `"env" must map names to strings, or to null to remove a variable`;
      return undefined;
    case "process.write":
      if (typeof params.text !== "string") return `"text" must be text`;
      return Number.isSafeInteger(params.process) ? undefined : `"process" must be a process`;
    case "process.end":
    case "process.kill":
      return Number.isSafeInteger(params.process) ? undefined : `"process" must be a process`;
  }
}

/**
 * Reads a message the app sent, in the screen. The app is trusted; this
 * keeps a broken message from being taken for an answer.
 *
 * @param data The message's data, as the port delivered it.
 */
export function readAppMessage(data: unknown): AppMessage | null {
  if (!isObject(data)) return null;
  if (data.type === "response" && typeof data.ok === "boolean") {
    if (data.ok) {
      return Number.isSafeInteger(data.id) ? data as AppMessage : null;
    }
    const error = data.error;
    return isObject(error) && typeof error.name === "string" && typeof error.message === "string"
      ? data as AppMessage
      : null;
  }
  if (data.type === "process-output") {
    return Number.isSafeInteger(data.process) && typeof data.text === "string" &&
        (data.stream === "stdout" || data.stream === "stderr")
      ? data as AppMessage
      : null;
  }
  if (data.type === "process-exit") {
    return Number.isSafeInteger(data.process) ? data as AppMessage : null;
  }
  return null;
}

/**
 * Reads the connect message in the frame: Sync's, of this version, with a port.
 *
 * @param data The message's data.
 */
export function readConnectMessage(data: unknown): ConnectMessage | null {
  if (!isObject(data) || data.sync !== "screen-connect" || data.version !== BRIDGE_VERSION) {
    return null;
  }
  const screen = data.screen;
  if (
    !isObject(screen) || typeof screen.id !== "string" || typeof screen.name !== "string" ||
    typeof screen.project !== "string" || typeof data.apiVersion !== "string"
  ) return null;
  return data as unknown as ConnectMessage;
}

function refuse(id: number | null, reason: string): ReadResult<never> {
  return { ok: false, id, reason };
}

function isObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function kindOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "a list" : typeof value;
}

/** The length of `value` as JSON when it is plain JSON all through; null otherwise. */
function jsonSize(value: unknown): number | null {
  let plain = true;
  const seen = new Set<unknown>();
  const walk = (v: unknown, depth: number) => {
    if (!plain) return;
    if (depth > 64) {
      plain = false;
      return;
    }
    if (v === null || typeof v === "string" || typeof v === "boolean") return;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) plain = false;
      return;
    }
    if (typeof v !== "object" || seen.has(v)) {
      plain = false;
      return;
    }
    seen.add(v);
    if (Array.isArray(v)) v.forEach((item) => walk(item, depth + 1));
    else if (isObject(v)) {
      for (const item of Object.values(v)) {
        if (item !== undefined) walk(item, depth + 1);
      }
    } else plain = false;
    seen.delete(v);
  };
  walk(value, 0);
  return plain ? JSON.stringify(value).length : null;
}
