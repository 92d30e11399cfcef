/**
 * A raw MCP `initialize`, for tests that post it themselves rather than
 * through the SDK's client (to see a refusal's status and body as sent).
 *
 * @module
 */

/** The headers a Streamable HTTP post to `/mcp` carries, with `token` as its Bearer. */
export function mcpPostHeaders(token: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
}

/** An `initialize` request as JSON text, from a client named `clientName`. */
export function initializeRequest(clientName = "raw"): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: clientName, version: "1" },
    },
  });
}
