/**
 * Reads one message a screen's page sent over `GET /api/processes`: every
 * field is checked, and a message that is not a request is refused with what
 * is wrong with it, never thrown further.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";
import { SCREEN_PROCESS_LIMITS } from "../limits.ts";
import type { ProcessRequest } from "./api/process_types.ts";

/** The request kinds, for the refusal of an unknown one. */
const TYPES = ["spawn", "write", "end", "kill"] as const;

/**
 * The request in a text frame.
 *
 * @param data The frame's data, as the socket gave it.
 * @returns The request, checked.
 * @throws {ProcessRequestError} naming what is wrong; its `requestId` is the
 *   message's `id` when one could be read, so the refusal can answer it.
 */
export function parseProcessRequest(data: unknown): ProcessRequest {
  if (typeof data !== "string") {
    throw new ProcessRequestError(null, "messages are JSON text, not binary frames");
  }
  const max = SCREEN_PROCESS_LIMITS.maxMessageBytes;
  // A character is at most three bytes of UTF-8: most messages are not encoded to be measured.
  if (
    data.length > max || (data.length * 3 > max && new TextEncoder().encode(data).length > max)
  ) {
    throw new ProcessRequestError(
      null,
      `the message is larger than ${SCREEN_PROCESS_LIMITS.maxMessageBytes} bytes; ` +
        `write long input in parts`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new ProcessRequestError(null, "the message is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ProcessRequestError(null, "the message is not a JSON object");
  }
  const message = value as Record<string, unknown>;
  const id = message.id;
  if (!(typeof id === "string" && id.length <= 200) && !Number.isSafeInteger(id)) {
    throw new ProcessRequestError(null, `"id" must be a whole number or a short string`);
  }
  const requestId = id as number | string;
  const fail = (why: string) => new ProcessRequestError(requestId, why);
  switch (message.type) {
    case "spawn": {
      known(message, ["type", "id", "process", "args", "cwd", "env"], fail);
      if (typeof message.process !== "string" || message.process === "") {
        throw fail(`"process" must name a program the manifest declares under host.processes`);
      }
      const request: ProcessRequest = { type: "spawn", id: requestId, process: message.process };
      if (message.args !== undefined) request.args = stringList(message.args, fail);
      if (message.cwd !== undefined) {
        if (typeof message.cwd !== "string" || message.cwd === "") {
          throw fail(`"cwd" must be a folder's path`);
        }
        request.cwd = message.cwd;
      }
      if (message.env !== undefined) request.env = environment(message.env, fail);
      return request;
    }
    case "write":
      known(message, ["type", "id", "pid", "text"], fail);
      if (typeof message.text !== "string") throw fail(`"text" must be a string`);
      return { type: "write", id: requestId, pid: pidOf(message, fail), text: message.text };
    case "end":
    case "kill":
      known(message, ["type", "id", "pid"], fail);
      return { type: message.type, id: requestId, pid: pidOf(message, fail) };
    default:
      throw fail(
        `unknown message type ${JSON.stringify(message.type) ?? "(none)"}; ` +
          `expected one of ${TYPES.join(", ")}`,
      );
  }
}

/** A message that is not a request, with the id to answer when it had one. */
export class ProcessRequestError extends InvalidInputError {
  /** The message's `id`, or null when it had none that could be read. */
  readonly requestId: number | string | null;

  /**
   * A refusal of one message.
   *
   * @param requestId The message's `id`, when one could be read.
   * @param why What is wrong with the message.
   */
  constructor(requestId: number | string | null, why: string) {
    super(`Cannot take the message: ${why}`);
    this.name = "InvalidInputError";
    this.requestId = requestId;
  }
}

function known(
  message: Record<string, unknown>,
  fields: readonly string[],
  fail: (why: string) => Error,
): void {
  const extra = Object.keys(message).filter((field) => !fields.includes(field));
  if (extra.length > 0) {
    throw fail(
      `unknown field ${JSON.stringify(extra[0])} in a ${message.type} message; ` +
        `expected ${fields.join(", ")}`,
    );
  }
}

function pidOf(message: Record<string, unknown>, fail: (why: string) => Error): number {
  const pid = message.pid;
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0) {
    throw fail(`"pid" must be the pid a spawn answered`);
  }
  return pid as number;
}

function stringList(value: unknown, fail: (why: string) => Error): string[] {
  if (!Array.isArray(value) || !value.every((arg) => typeof arg === "string")) {
    throw fail(`"args" must be a list of strings`);
  }
  if (value.length > SCREEN_PROCESS_LIMITS.maxArgs) {
    throw fail(`"args" has ${value.length} entries; at most ${SCREEN_PROCESS_LIMITS.maxArgs}`);
  }
  if (value.some((arg) => arg.includes("\0"))) throw fail(`an argument holds a NUL character`);
  return value;
}

function environment(
  value: unknown,
  fail: (why: string) => Error,
): Record<string, string | null> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw fail(`"env" must be an object of names to strings, or to null to remove one`);
  }
  const entries = Object.entries(value);
  if (entries.length > SCREEN_PROCESS_LIMITS.maxEnv) {
    throw fail(`"env" has ${entries.length} entries; at most ${SCREEN_PROCESS_LIMITS.maxEnv}`);
  }
  // A Map, made an object by defining each name: a variable named
  // `__proto__` is kept like any other.
  const env = new Map<string, string | null>();
  for (const [name, entry] of entries) {
    if (name === "" || name.includes("=") || name.includes("\0")) {
      throw fail(`${JSON.stringify(name)} is not a variable's name`);
    }
    if (name.startsWith("SYNC_")) {
      throw fail(`${name}: SYNC_* variables configure Sync itself and are never passed on`);
    }
    if (entry !== null && (typeof entry !== "string" || entry.includes("\0"))) {
      throw fail(`env.${name} must be a string, or null to remove it`);
    }
    const why = whyNotPassed(name);
    if (why !== undefined) {
      throw fail(`a screen may not ${entry === null ? "remove" : "set"} ${name}: ${why}`);
    }
    env.set(name, entry);
  }
  return Object.fromEntries(env);
}

/**
 * Why a screen may not name `name` in a spawn's env, or undefined when it may.
 * The approval names a program; these variables would let the screen swap it,
 * or load its own code into it, while the approved line stays the same.
 */
function whyNotPassed(name: string): string | undefined {
  if (name === "PATH") {
    return "it would change which programs run by name, for the approved program and " +
      "whatever it starts; they are found on Sync's own PATH";
  }
  // LD_* (Linux and the BSDs: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT), DYLD_* (macOS) and
  // GCONV_PATH (glibc loads iconv modules from it) each name shared objects the loader
  // runs inside the program.
  if (name.startsWith("LD_") || name.startsWith("DYLD_") || name === "GCONV_PATH") {
    return "it would change which code the approved program runs (it is read by the " +
      "dynamic loader)";
  }
  return undefined;
}
