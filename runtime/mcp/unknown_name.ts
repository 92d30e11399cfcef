/**
 * Calls of a tool or prompt sync-mcp does not offer, answered before they
 * reach the SDK's server.
 *
 * The SDK keeps what it offers in plain objects and looks a requested name up
 * in them, so `constructor` or `toString` is found there — as something every
 * object inherits, not as a tool — and is answered as a tool or prompt that is
 * switched off. sync-mcp answers a name only from what it registered itself,
 * held in Maps, and says plainly that it offers no such tool or prompt.
 *
 * @module
 */
import { INVALID_PARAMS, type InvalidParamsAnswer } from "./invalid_params.ts";

/** The names a server offers now. */
export interface OfferedNames {
  /** True for a tool the server registered. */
  tool(name: string): boolean;
  /** True for a prompt the server registered. */
  prompt(name: string): boolean;
}

/** A tool's answer that it failed, as MCP has a call of a tool report it. */
export interface ToolErrorAnswer {
  /** JSON-RPC's version. */
  jsonrpc: "2.0";
  /** The request's id. */
  id: string | number;
  /** What went wrong, as the tool's text, marked as an error. */
  result: { content: { type: "text"; text: string }[]; isError: true };
}

/**
 * The answer to a `tools/call` or `prompts/get` of a name the server does not
 * offer, or null for any other message (params that do not fit their method
 * are answered by {@linkcode invalidParams} first). A tool is answered as a
 * tool error, and a prompt as invalid params, which is how the SDK answers a
 * name it does not hold.
 *
 * @param message A JSON-RPC message the client sent.
 * @param offered What the server offers now.
 * @returns The answer naming the tool or prompt, or null.
 */
export function unknownName(
  message: object,
  offered: OfferedNames,
): ToolErrorAnswer | InvalidParamsAnswer | null {
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof id !== "string" && typeof id !== "number") return null;
  if (method !== "tools/call" && method !== "prompts/get") return null;
  const name = typeof params === "object" && params !== null
    ? (params as { name?: unknown }).name
    : undefined;
  if (typeof name !== "string") return null;
  const what = method === "tools/call" ? "tool" : "prompt";
  if (what === "tool" ? offered.tool(name) : offered.prompt(name)) return null;
  const text = `sync-mcp offers no ${what} named ${JSON.stringify(name)} in this project; ` +
    `list them with ${what}s/list`;
  if (what === "tool") {
    return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], isError: true } };
  }
  return { jsonrpc: "2.0", id, error: { code: INVALID_PARAMS, message: text } };
}
