import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  type JsonRpcMessage,
  type JsonRpcResult,
  NotJsonRpcError,
  readJsonRpc,
} from "../../runtime/mcp_bridge/_json_rpc.ts";
import { sseEvents } from "../../runtime/mcp_bridge/_sse_events.ts";
import { StdioLines } from "../../runtime/mcp_bridge/_stdio_lines.ts";
import {
  HttpRefusalError,
  StreamableHttpClient,
} from "../../runtime/mcp_bridge/_streamable_http.ts";

/** A stream of bytes that gives `chunks` one by one, then ends. */
function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(
    chunks.map((chunk) => typeof chunk === "string" ? encoder.encode(chunk) : chunk),
  );
}

/** A real MCP server of the SDK on 127.0.0.1, and each request it was sent. */
function sdkServer(json: boolean) {
  const seen: { method: string; headers: Headers }[] = [];
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    seen.push({ method: req.method, headers: req.headers });
    const id = req.headers.get("mcp-session-id");
    if (id !== null) {
      const known = sessions.get(id);
      return known ? await known.handleRequest(req) : new Response("no such session", {
        status: 404,
      });
    }
    const server = new McpServer({ name: "wire-test", version: "1.0.0" }, {
      capabilities: { tools: { listChanged: true } },
    });
    server.registerTool("echo", { description: "echo" }, () => ({
      content: [{ type: "text", text: "echoed" }],
    }));
    servers.push(server);
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (sid: string) => void sessions.set(sid, transport),
        onsessionclosed: (sid: string) => void sessions.delete(sid),
      });
    await server.connect(transport);
    return await transport.handleRequest(req);
  });
  return {
    url: new URL(`http://127.0.0.1:${http.addr.port}/mcp`),
    seen,
    servers,
    async close() {
      await Promise.all(servers.map((server) => server.close()));
      await http.shutdown();
    },
  };
}

/** A client of `url` that keeps what it is sent, and a way to wait for a message. */
function client(url: URL) {
  const got: JsonRpcMessage[] = [];
  const waiting: { test: (m: JsonRpcMessage) => boolean; resolve: () => void }[] = [];
  const http = new StreamableHttpClient(url, {
    token: "t0ken",
    onmessage: (message) => {
      got.push(message);
      for (const wait of waiting.filter(({ test }) => test(message))) wait.resolve();
    },
    onerror: (error) => {
      throw error;
    },
  });
  const until = (test: (m: JsonRpcMessage) => boolean) =>
    got.some(test) ? Promise.resolve() : new Promise<void>((resolve) => {
      waiting.push({ test, resolve });
    });
  return { http, got, until };
}

const INITIALIZE: JsonRpcMessage = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "wire", version: "1" },
  },
};

/** True for the answer to request `id`. */
const answerTo = (id: number) => (message: JsonRpcMessage) =>
  !Object.hasOwn(message, "method") && (message as { id?: unknown }).id === id;

Deno.test("`StreamableHttpClient` speaks Streamable HTTP with the SDK's server", async (t) => {
  for (const json of [false, true]) {
    await t.step(`answers as ${json ? "JSON" : "an event stream"}`, async (t) => {
      const server = sdkServer(json);
      const { http, got, until } = client(server.url);
      try {
        await t.step("initialize is answered, and the session's id kept", async () => {
          await http.send(INITIALIZE);
          await until(answerTo(1));
          assert.equal(
            (got[0] as JsonRpcResult).result.protocolVersion,
            "2025-06-18",
          );
          assert.ok(http.sessionId);
          assert.equal(server.seen[0].headers.get("accept"), "application/json, text/event-stream");
          assert.equal(server.seen[0].headers.get("authorization"), "Bearer t0ken");
          assert.equal(server.seen[0].headers.get("mcp-protocol-version"), null);
        });

        await t.step("later requests carry the session and the version agreed", async () => {
          await http.send({ jsonrpc: "2.0", method: "notifications/initialized" });
          await http.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
          await until(answerTo(2));
          const posts = server.seen.filter(({ method }) => method === "POST").slice(1);
          assert.equal(posts.length, 2);
          for (const { headers } of posts) {
            assert.equal(headers.get("mcp-session-id"), http.sessionId);
            assert.equal(headers.get("mcp-protocol-version"), "2025-06-18");
          }
          const tools = got.find(answerTo(2)) as JsonRpcResult;
          assert.deepEqual(
            (tools.result.tools as { name: string }[]).map(({ name }) => name),
            ["echo"],
          );
        });

        await t.step("what the server says unasked comes on the GET stream", async () => {
          // The GET stream is opened once initialized was taken; wait until the server has it.
          while (!server.seen.some(({ method }) => method === "GET")) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          const changed = (m: JsonRpcMessage) =>
            (m as { method?: string }).method === "notifications/tools/list_changed";
          // The server may take the stream a moment after the request: tell until it is heard.
          const heard = until(changed);
          let told = false;
          heard.then(() => told = true);
          while (!told) {
            server.servers[0].sendToolListChanged();
            await Promise.race([heard, new Promise((resolve) => setTimeout(resolve, 50))]);
          }
          const get = server.seen.find(({ method }) => method === "GET")!;
          assert.equal(get.headers.get("accept"), "text/event-stream");
          assert.equal(get.headers.get("mcp-session-id"), http.sessionId);
        });

        await t.step("terminateSession DELETEs the session", async () => {
          const id = http.sessionId;
          await http.terminateSession();
          const deleted = server.seen.find(({ method }) => method === "DELETE")!;
          assert.equal(deleted.headers.get("mcp-session-id"), id);
          assert.equal(http.sessionId, undefined);
        });

        await t.step("a session the server no longer has is refused with 404", async () => {
          const other = client(server.url);
          try {
            await other.http.send(INITIALIZE);
            await other.until(answerTo(1));
            // Ended behind the client's back, as a serve restarted or idled it out.
            const gone = await fetch(server.url, {
              method: "DELETE",
              headers: { "mcp-session-id": other.http.sessionId! },
            });
            await gone.body?.cancel();
            await assert.rejects(
              () => other.http.send({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
              (error) => error instanceof HttpRefusalError && error.status === 404,
            );
          } finally {
            other.http.close();
          }
        });
      } finally {
        http.close();
        await server.close();
      }
    });
  }
});

Deno.test("`sseEvents()` reads an event stream however it is cut", async (t) => {
  const text = ': a comment\r\nretry: 2500\r\nevent: message\r\nid: 7\r\ndata: {"a":\r\n' +
    "data: 1}\r\n\r\nid: 8\ndata:\n\nevent: other\ndata: x\n\ndata: unended";
  const expected = [
    { event: "message", data: '{"a":\n1}', id: "7" },
    { event: "", data: "", id: "8" },
    { event: "other", data: "x", id: undefined },
  ];
  for (const size of [1, 2, 3, 7, text.length]) {
    await t.step(`in pieces of ${size} characters`, async () => {
      const pieces: string[] = [];
      for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
      const retries: number[] = [];
      const events = [];
      for await (
        const event of sseEvents(streamOf(pieces), { onRetry: (ms) => retries.push(ms) })
      ) {
        events.push(event);
      }
      assert.deepEqual(events, expected);
      assert.deepEqual(retries, [2500]);
    });
  }
  await t.step("a lone carriage return ends a line too", async () => {
    const events = [];
    for await (const event of sseEvents(streamOf(["data: a\rdata: b\r\r"]))) events.push(event);
    assert.deepEqual(events, [{ event: "", data: "a\nb", id: undefined }]);
  });
});

Deno.test("`readJsonRpc()` takes what the SDK's message schema takes, and nothing else", async (t) => {
  const cases: unknown[] = [
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "x", arguments: {} } },
    { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: 3 } } },
    { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: 1.5 } } },
    { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: "no" } },
    { jsonrpc: "2.0", id: 1, method: "x", params: [] },
    { jsonrpc: "2.0", id: 1.5, method: "x" },
    { jsonrpc: "2.0", id: null, method: "x" },
    { jsonrpc: "2.0", id: 1, method: 3 },
    { jsonrpc: "2.0", id: 1, method: "x", extra: true },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", method: "n", params: { a: 1 } },
    { jsonrpc: "2.0", method: "n", extra: 1 },
    { jsonrpc: "2.0", id: 1, result: {} },
    { jsonrpc: "2.0", id: 1, result: { content: [] } },
    { jsonrpc: "2.0", id: 1, result: [] },
    { jsonrpc: "2.0", result: {} },
    { jsonrpc: "2.0", id: 1, result: {}, extra: 1 },
    { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "no" } },
    { jsonrpc: "2.0", error: { code: -32700, message: "no", data: [1] } },
    { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "no" } },
    { jsonrpc: "2.0", id: 1, error: { code: 1 } },
    { jsonrpc: "2.0", id: 1, error: "no" },
    { jsonrpc: "2.0", id: 1 },
    { jsonrpc: "1.0", id: 1, method: "x" },
    { id: 1, method: "x" },
    [{ jsonrpc: "2.0", id: 1, method: "x" }],
    "text",
    42,
    null,
  ];
  for (const value of cases) {
    await t.step(JSON.stringify(value), () => {
      const sdk = JSONRPCMessageSchema.safeParse(value).success;
      let ours: boolean;
      try {
        readJsonRpc(JSON.stringify(value));
        ours = true;
      } catch (error) {
        assert.ok(error instanceof NotJsonRpcError);
        ours = false;
      }
      assert.equal(ours, sdk);
    });
  }
  await t.step("text that is not JSON is a SyntaxError", () => {
    assert.throws(() => readJsonRpc("not json"), SyntaxError);
  });
});

Deno.test("`StdioLines` reads a message a line, however the lines come", async (t) => {
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  const note = JSON.stringify({ jsonrpc: "2.0", method: "n" });
  const written: string[] = [];
  const got: JsonRpcMessage[] = [];
  const errors: Error[] = [];
  let ended!: () => void;
  const end = new Promise<void>((resolve) => ended = resolve);
  const lines = new StdioLines({
    input: streamOf([ping.slice(0, 5), ping.slice(5) + "\r\n" + "oops\n{}\n", note, "\n", "tail"]),
    output: new WritableStream({
      write: (chunk) => void written.push(new TextDecoder().decode(chunk)),
    }),
    onmessage: (message) => got.push(message),
    onerror: (error) => errors.push(error),
    onend: () => ended(),
    onclose: () => {},
  });
  lines.start();
  await end;
  await t.step("each whole line is a message; a \\r before the newline is dropped", () => {
    assert.deepEqual(got, [JSON.parse(ping), JSON.parse(note)]);
  });
  await t.step("a line that is not JSON, or no message, is told and skipped", () => {
    assert.ok(errors[0] instanceof SyntaxError);
    assert.ok(errors[1] instanceof NotJsonRpcError);
    assert.equal(errors.length, 2);
  });
  await t.step("a message is written as one line", async () => {
    await lines.send({ jsonrpc: "2.0", id: 1, result: { text: "a\nb" } });
    assert.deepEqual(written, ['{"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb"}}\n']);
    await lines.close();
  });
});
