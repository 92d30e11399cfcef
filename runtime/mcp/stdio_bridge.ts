/**
 * sync-mcp on stdio, as a bridge: every message an MCP client writes on
 * stdin is sent to the `/mcp` of the serve that owns the installation, and
 * every message from there is written to stdout. The bridge holds no state
 * of the installation, so a client that stays connected all day never keeps
 * the clock, the CLI or the app from the installation.
 *
 * @module
 */
import process from "node:process";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types";
import { describeError } from "../internal/describe_error.ts";

/** Options for {@linkcode bridgeStdio}. */
export interface BridgeOptions {
  /** The owner's `/mcp` URL, with `?project=`. */
  url: URL;
  /** The installation's token. */
  token: string;
  /** Where the bridge says what went wrong (stderr: stdout is the protocol's). */
  log: (line: string) => void;
}

/**
 * Bridges stdin and stdout to the owner's `/mcp` until stdin ends or the
 * owner goes away. A request that cannot be sent is answered with a JSON-RPC
 * error saying why, so the client is never left waiting.
 *
 * @param options Where to, with which token, and where to tell problems.
 */
export async function bridgeStdio(options: BridgeOptions): Promise<void> {
  const stdio = new StdioServerTransport();
  const http = new StreamableHTTPClientTransport(options.url, {
    requestInit: { headers: { authorization: `Bearer ${options.token}` } },
  });
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => finish = resolve);
  stdio.onmessage = (message: JSONRPCMessage) => {
    http.send(message).catch(async (error) => {
      const { message: why } = describeError(error);
      options.log(`sync mcp: ${options.url.origin}/mcp did not take a message: ${why}`);
      if ("id" in message && "method" in message) {
        await stdio.send({
          jsonrpc: "2.0",
          id: message.id,
          error: {
            code: -32603,
            message: `Sync at ${options.url.origin} did not answer (${why}); is deno task ` +
              `serve still running?`,
          },
        }).catch(() => {});
      }
    });
  };
  http.onmessage = (message: JSONRPCMessage) => {
    stdio.send(message).catch(() => finish());
  };
  http.onerror = (error: Error) => options.log(`sync mcp: ${describeError(error).message}`);
  http.onclose = () => finish();
  stdio.onclose = () => finish();
  process.stdin.once("end", () => finish());
  await http.start();
  await stdio.start();
  await finished;
  try {
    await http.terminateSession();
  } catch { /* the owner is gone, or ended the session itself */ }
  await http.close().catch(() => {});
  await stdio.close().catch(() => {});
}
