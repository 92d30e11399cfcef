/**
 * JSON-RPC 2.0 messages as MCP writes them, and the one check of what a line
 * or an event holds: the shapes MCP's own transports accept (a request, a
 * notification, a result or an error, each with no other members), so the
 * bridge passes on exactly what the SDK's transports would.
 *
 * @module
 */

/** A request's id: a string or an integer. */
export type JsonRpcId = string | number;

/** A request: it is answered. */
export interface JsonRpcRequest {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The request's id, which its answer repeats. */
  id: JsonRpcId;
  /** What is asked or told. */
  method: string;
  /** Its arguments. */
  params?: Record<string, unknown>;
}

/** A notification: it is not answered. */
export interface JsonRpcNotification {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** What is asked or told. */
  method: string;
  /** Its arguments. */
  params?: Record<string, unknown>;
}

/** A request's answer. */
export interface JsonRpcResult {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The request's id, which its answer repeats. */
  id: JsonRpcId;
  /** What the request was answered with. */
  result: Record<string, unknown>;
}

/** A request's refusal (without an id when the request could not be read). */
export interface JsonRpcError {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The refused request's id. */
  id?: JsonRpcId;
  /** The refusal: a JSON-RPC code, words, and anything more. */
  error: { code: number; message: string; data?: unknown };
}

/** Any message of the protocol. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResult | JsonRpcError;

/** Raised for JSON that is no JSON-RPC message. */
export class NotJsonRpcError extends Error {
  /** The error's name. */
  override name = "NotJsonRpcError";
}

/** True for a plain object (not an array, not null). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `value` has no members beyond `allowed`. */
function onlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

/** True for a request's id. */
function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || Number.isInteger(value);
}

/**
 * True for `params` as MCP allows them: an object whose `_meta`, when
 * present, is an object with a string or integer `progressToken`.
 */
function validParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isRecord(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isRecord(meta)) return false;
  return meta.progressToken === undefined || isId(meta.progressToken);
}

/** The shape of `value` as a message, or null when it is none. */
function messageOf(value: unknown): JsonRpcMessage | null {
  if (!isRecord(value) || value.jsonrpc !== "2.0") return null;
  if (Object.hasOwn(value, "method")) {
    if (typeof value.method !== "string" || !validParams(value.params)) return null;
    if (Object.hasOwn(value, "id")) {
      return isId(value.id) && onlyKeys(value, ["jsonrpc", "id", "method", "params"])
        ? value as unknown as JsonRpcRequest
        : null;
    }
    return onlyKeys(value, ["jsonrpc", "method", "params"])
      ? value as unknown as JsonRpcNotification
      : null;
  }
  if (Object.hasOwn(value, "result")) {
    return isId(value.id) && isRecord(value.result) && onlyKeys(value, ["jsonrpc", "id", "result"])
      ? value as unknown as JsonRpcResult
      : null;
  }
  const error = value.error;
  if (
    !isRecord(error) || !Number.isInteger(error.code) || typeof error.message !== "string" ||
    (value.id !== undefined && !isId(value.id)) || !onlyKeys(value, ["jsonrpc", "id", "error"])
  ) return null;
  return value as unknown as JsonRpcError;
}

/**
 * The message a line of JSON holds.
 *
 * @throws {SyntaxError} when the text is not JSON.
 * @throws {NotJsonRpcError} when it is JSON but no JSON-RPC message (a batch included: MCP has none).
 */
export function readJsonRpc(text: string): JsonRpcMessage {
  const message = messageOf(JSON.parse(text));
  if (message === null) throw new NotJsonRpcError("the JSON is not a JSON-RPC message");
  return message;
}

/** The method of a request or notification; undefined for an answer. */
export function methodOf(message: JsonRpcMessage): string | undefined {
  return Object.hasOwn(message, "method") ? (message as JsonRpcNotification).method : undefined;
}

/** True for a request (a method and an id). */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return Object.hasOwn(message, "method") && Object.hasOwn(message, "id");
}

/** True for an answer or a refusal (an id and no method). */
export function isAnswer(message: JsonRpcMessage): message is JsonRpcResult | JsonRpcError {
  return !Object.hasOwn(message, "method");
}
