/**
 * Errors the SDK's server makes itself (a tool's input that does not fit its
 * schema, say) carry their code twice: the SDK's error class writes
 * `MCP error -32602: ` in front of its message, and that message is sent as
 * the JSON-RPC error's, beside the code, or as a failed tool's text. A
 * client's SDK then puts the code in front once more. sync-mcp sends such
 * messages without the prefix, so a person reads the code once.
 *
 * @module
 */
/** The SDK's `McpError` prefix: `MCP error <code>: `. */
const CODE_PREFIX = /^MCP error -?\d+: /;

/**
 * The message as it goes to the client: an error's message, or a failed
 * tool's first text, without the SDK's code prefix; any other message as it is.
 *
 * @param message A JSON-RPC message the server sends.
 * @returns The message, or a copy of it without the prefix.
 */
export function withoutCodePrefix<M extends object>(message: M): M {
  const { error, result } = message as { error?: { message?: unknown }; result?: unknown };
  if (typeof error?.message === "string") {
    if (!CODE_PREFIX.test(error.message)) return message;
    return { ...message, error: { ...error, message: error.message.replace(CODE_PREFIX, "") } };
  }
  const { isError, content } = (result ?? {}) as { isError?: unknown; content?: unknown };
  if (isError !== true || !Array.isArray(content)) return message;
  const [first, ...rest] = content as { type?: unknown; text?: unknown }[];
  if (first?.type !== "text" || typeof first.text !== "string" || !CODE_PREFIX.test(first.text)) {
    return message;
  }
  const text = first.text.replace(CODE_PREFIX, "");
  return { ...message, result: { ...result as object, content: [{ ...first, text }, ...rest] } };
}
