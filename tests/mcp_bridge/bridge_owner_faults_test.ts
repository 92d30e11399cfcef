import assert from "node:assert/strict";
import { bridgeStdio } from "../../runtime/mcp_bridge/stdio_bridge.ts";

const encoder = new TextEncoder();

/** How a fake owner answers what is not `initialize`, `initialized` or DELETE. */
interface FakeOwnerAnswers {
  /** A GET, opening the stream of what the owner tells unasked. */
  get?: (request: Request) => Response;
  /** A request of the client's, by its parsed body. */
  post?: (message: { id: unknown; method: string }) => Response | Promise<Response>;
}

/**
 * An owner's `/mcp` on 127.0.0.1 that answers `initialize` and takes
 * `initialized` as the SDK's server does, and everything else as the step
 * says: what a real serve never sends.
 */
function fakeOwner(answers: FakeOwnerAnswers) {
  const seen: string[] = [];
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    seen.push(req.method);
    if (req.method === "GET") {
      return answers.get?.(req) ?? new Response(null, { status: 405 });
    }
    if (req.method === "DELETE") return new Response(null, { status: 200 });
    const message = await req.json();
    if (message.method === "initialize") {
      return Response.json({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "fake-owner", version: "1.0.0" },
        },
      }, { headers: { "mcp-session-id": "s1" } });
    }
    if (!Object.hasOwn(message, "id")) return new Response(null, { status: 202 });
    return answers.post?.(message) ??
      Response.json({ jsonrpc: "2.0", id: message.id, result: { tools: [] } });
  });
  return {
    url: new URL(`http://127.0.0.1:${http.addr.port}/mcp`),
    seen,
    async [Symbol.asyncDispose]() {
      await http.shutdown();
    },
  };
}

/** What the bridge wrote and logged, with a way to wait for either. */
class Watched {
  lines: Record<string, unknown>[] = [];
  logged: string[] = [];
  #waiters: (() => void)[] = [];
  #rest = "";
  #decoder = new TextDecoder();

  /** Where the bridge writes its lines. */
  output = new WritableStream<Uint8Array>({
    write: (chunk) => {
      const lines = (this.#rest + this.#decoder.decode(chunk, { stream: true })).split("\n");
      this.#rest = lines.pop()!;
      for (const line of lines) this.lines.push(JSON.parse(line));
      this.#tell();
    },
  });

  /** Where the bridge says what went wrong. */
  log = (line: string) => {
    this.logged.push(line);
    this.#tell();
  };

  /** The answer to request `id`, once written. */
  answer(id: unknown): Record<string, unknown> | undefined {
    return this.lines.find((line) => line.id === id && !Object.hasOwn(line, "method"));
  }

  /** Waits until `condition` holds. */
  async until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  #tell(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}

/** The client's side of stdin: lines written when asked, closed when asked. */
function clientInput() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    stream,
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
  };
}

/** A line of the client's. */
function line(message: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n";
}

const INITIALIZE = line({
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "faults-test", version: "1.0.0" },
  },
});
const INITIALIZED = line({ method: "notifications/initialized" });

/** A line of 11 MiB, past what the bridge reads. */
const TOO_LONG = "x".repeat(11 * 1024 * 1024);

/**
 * Runs the bridge against `owner` with `input`; the step must make it end.
 * Without the fix it would wait for ever: `hung` fails the step after 20 s.
 */
function runBridge(
  owner: { url: URL },
  input: ReadableStream<Uint8Array>,
  watched: Watched,
): Promise<void> {
  return bridgeStdio({
    url: owner.url,
    token: "t",
    name: "the fake owner",
    log: watched.log,
    input,
    output: watched.output,
  });
}

/** Fails after `ms` unless cleared: a guard against a step that would wait for ever. */
function guard(ms: number, what: string) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const failed = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  return {
    race: <T>(promise: Promise<T>) => Promise.race([promise, failed]),
    [Symbol.dispose]: () => clearTimeout(timer),
  };
}

Deno.test("`bridgeStdio()` answers what it owes whatever the owner and the client send", async (t) => {
  await t.step(
    "a line past 10 MiB stops reading, and what was read is still answered",
    async (t) => {
      await t.step("a request at the owner gets its answer", async () => {
        let release = () => {};
        const released = new Promise<void>((resolve) => release = resolve);
        let reached = () => {};
        const atOwner = new Promise<void>((resolve) => reached = resolve);
        await using owner = fakeOwner({
          post: async (message) => {
            reached();
            await released;
            return Response.json({ jsonrpc: "2.0", id: message.id, result: { tools: [] } });
          },
        });
        const watched = new Watched();
        const input = clientInput();
        const bridge = runBridge(owner, input.stream, watched);
        using hung = guard(20_000, "the bridge did not end");
        try {
          input.write(INITIALIZE + INITIALIZED + line({ id: 1, method: "tools/list" }));
          await hung.race(atOwner);
          input.write(TOO_LONG);
          await hung.race(watched.until(() => watched.logged.some((l) => /longer than/.test(l))));
          // The answer is held a moment past the bridge's end of reading, as a
          // serve's is for a call that takes a while: a bridge that ended on the
          // long line would end well within it, the answer unwritten.
          let ended = false;
          void bridge.finally(() => ended = true);
          await hung.race(Promise.race([bridge, new Promise((wake) => setTimeout(wake, 500))]));
          assert.equal(ended, false, "the bridge ended with a request unanswered");
        } finally {
          release();
        }
        await hung.race(bridge);
        assert.deepEqual(watched.answer(1)?.result, { tools: [] });
      });

      await t.step("a request held for an initialize gets an error", async () => {
        await using owner = fakeOwner({});
        const watched = new Watched();
        const input = clientInput();
        const bridge = runBridge(owner, input.stream, watched);
        using hung = guard(20_000, "the bridge did not end");
        input.write(line({ id: 1, method: "tools/list" }) + TOO_LONG);
        await hung.race(bridge);
        const answer = watched.answer(1)?.error as { code: number; message: string };
        assert.equal(answer?.code, -32600);
        assert.match(answer.message, /stopped reading stdin at a line longer than 10 MiB/);
      });
    },
  );

  await t.step(
    "a GET stream that keeps ending empty is opened a few times, then no more",
    async () => {
      await using owner = fakeOwner({
        get: () =>
          new Response("retry: 0\n\n", { headers: { "content-type": "text/event-stream" } }),
      });
      const watched = new Watched();
      const input = clientInput();
      const bridge = runBridge(owner, input.stream, watched);
      using hung = guard(30_000, "the GET stream was opened on and on");
      input.write(INITIALIZE + INITIALIZED);
      await hung.race(watched.until(() => watched.logged.some((l) => /opened no more/.test(l))));
      const gets = owner.seen.filter((method) => method === "GET").length;
      assert.ok(gets <= 4, `${gets} GETs`);
      assert.equal(watched.logged.filter((l) => /opened no more/.test(l)).length, 1);
      // Requests go on as before.
      input.write(line({ id: 1, method: "tools/list" }));
      await hung.race(watched.until(() => watched.answer(1) !== undefined));
      assert.deepEqual(watched.answer(1)?.result, { tools: [] });
      input.close();
      await hung.race(bridge);
    },
  );

  await t.step(
    "an event past 10 MiB is dropped with its stream, and the request answered",
    async () => {
      let cancelled = false;
      await using owner = fakeOwner({
        post: () =>
          new Response(
            new ReadableStream<Uint8Array>({
              start(controller) {
                controller.enqueue(encoder.encode(`data: ${"y".repeat(11 * 1024 * 1024)}`));
              },
              cancel() {
                cancelled = true;
              },
            }),
            { headers: { "content-type": "text/event-stream" } },
          ),
      });
      const watched = new Watched();
      const input = clientInput();
      const bridge = runBridge(owner, input.stream, watched);
      using hung = guard(20_000, "the event was read on and on");
      input.write(INITIALIZE + INITIALIZED + line({ id: 1, method: "tools/list" }));
      await hung.race(watched.until(() => watched.answer(1) !== undefined));
      const error = watched.answer(1)?.error as { code: number; message: string };
      assert.equal(error.code, -32603);
      assert.match(error.message, /an event longer than 10 MiB, more than the bridge takes/);
      input.close();
      await hung.race(bridge);
      assert.ok(cancelled, "the stream was not dropped");
    },
  );

  await t.step("a refusal's long body is quoted only in part", async () => {
    await using owner = fakeOwner({
      post: () => new Response("z".repeat(1024 * 1024), { status: 500 }),
    });
    const watched = new Watched();
    const input = clientInput();
    const bridge = runBridge(owner, input.stream, watched);
    using hung = guard(20_000, "the bridge did not end");
    input.write(INITIALIZE + INITIALIZED + line({ id: 1, method: "tools/list" }));
    input.close();
    await hung.race(bridge);
    const error = watched.answer(1)?.error as { code: number; message: string };
    assert.match(error.message, /HTTP 500: z{200}…/);
    assert.ok(error.message.length < 1000, `${error.message.length} characters`);
    assert.ok(watched.logged.every((l) => l.length < 1000));
  });

  await t.step(
    "an answer to an id never sent is dropped; the request is still answered",
    async () => {
      await using owner = fakeOwner({
        post: () => Response.json({ jsonrpc: "2.0", id: 99, result: { tools: [] } }),
      });
      const watched = new Watched();
      const input = clientInput();
      const bridge = runBridge(owner, input.stream, watched);
      using hung = guard(20_000, "the bridge did not end");
      input.write(INITIALIZE + INITIALIZED + line({ id: 1, method: "tools/list" }));
      input.close();
      await hung.race(bridge);
      assert.equal(watched.answer(99), undefined);
      assert.equal((watched.answer(1)?.error as { code: number }).code, -32603);
      assert.ok(
        watched.logged.some((l) => /did not send or was answered already \(id 99\)/.test(l)),
      );
    },
  );
});

/**
 * An owner's `/mcp` on 127.0.0.1 over raw TCP, one request a connection:
 * it answers `initialize` and `initialized`, and breaks the connection
 * after reading any other request, without a word: what a serve killed
 * while it ran the request leaves. It counts the requests it was sent.
 */
function breakingOwner() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const sent: string[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      void (async () => {
        try {
          const request = await readRequest(conn);
          if (request === null) return;
          const message = JSON.parse(request);
          sent.push(message.method);
          if (message.method === "initialize") {
            respond(
              conn,
              200,
              JSON.stringify({
                jsonrpc: "2.0",
                id: message.id,
                result: {
                  protocolVersion: "2025-06-18",
                  capabilities: { tools: {} },
                  serverInfo: { name: "breaking-owner", version: "1.0.0" },
                },
              }),
            );
          } else if (message.method === "notifications/initialized") {
            await respond(conn, 202, "");
          }
        } catch {
          // The bridge went away first.
        } finally {
          try {
            conn.close();
          } catch { /* closed already */ }
        }
      })();
    }
  })();
  return {
    url: new URL(`http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/mcp`),
    sent,
    async [Symbol.asyncDispose]() {
      listener.close();
      await serving.catch(() => {});
    },
  };
}

/** Reads one request's body: its head up to the blank line, then `content-length` bytes. */
async function readRequest(conn: Deno.Conn): Promise<string | null> {
  const decoder = new TextDecoder();
  let bytes = new Uint8Array(0);
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const text = decoder.decode(bytes);
    const end = text.indexOf("\r\n\r\n");
    if (end !== -1) {
      const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      const body = encoder.encode(text).slice(end + 4);
      if (body.length >= length) return decoder.decode(body.slice(0, length));
    }
    const read = await conn.read(buffer);
    if (read === null) return null;
    bytes = new Uint8Array([...bytes, ...buffer.subarray(0, read)]);
  }
}

/** Writes a whole answer and says the connection ends with it. */
async function respond(conn: Deno.Conn, status: number, body: string): Promise<void> {
  const bytes = encoder.encode(body);
  const head = `HTTP/1.1 ${status} ${status === 200 ? "OK" : "Accepted"}\r\n` +
    `content-type: application/json\r\nmcp-session-id: s1\r\n` +
    `content-length: ${bytes.length}\r\nconnection: close\r\n\r\n`;
  let rest = new Uint8Array([...encoder.encode(head), ...bytes]);
  while (rest.length > 0) rest = rest.subarray(await conn.write(rest));
}

Deno.test("`bridgeStdio()` never sends a request again once it may have reached the owner", async () => {
  await using owner = breakingOwner();
  const watched = new Watched();
  const input = clientInput();
  const bridge = bridgeStdio({
    url: owner.url,
    token: "t",
    name: "the breaking owner",
    log: watched.log,
    input: input.stream,
    output: watched.output,
    // A new session would be opened with the same owner, and the call sent there again.
    reconnect: () => Promise.resolve({ url: owner.url, token: "t", name: "the breaking owner" }),
  });
  using hung = guard(20_000, "the bridge did not end");
  input.write(
    INITIALIZE + INITIALIZED + line({ id: 1, method: "tools/call", params: { name: "x" } }),
  );
  await hung.race(watched.until(() => watched.answer(1) !== undefined));
  input.close();
  await hung.race(bridge);
  const error = watched.answer(1)?.error as { message: string };
  assert.match(error.message, /was cut off or could not be read .*what it did is unknown/);
  assert.deepEqual(owner.sent.filter((method) => method === "tools/call"), ["tools/call"]);
});
