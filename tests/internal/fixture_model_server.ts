/**
 * A model server for tests: a real HTTP server on 127.0.0.1 that speaks the
 * chat-completions API and answers from a script, one step per request —
 * a JSON answer, a text answer, a status, a connection dropped, or no answer
 * at all. Raw TCP, so that a dropped connection and a silence are what they
 * are. No test calls a real hosted model.
 *
 * @module
 */

/** One scripted answer. */
export type ScriptStep =
  | { answer: unknown; usage?: { prompt: number; completion: number } }
  | { content: string; finish?: string }
  | { status: number; body: string; headers?: Record<string, string> }
  | { drop: true }
  | { silent: true };

/** A request the server took. */
export interface SeenRequest {
  /** Its method and path, such as `POST /v1/chat/completions`. */
  line: string;
  /** Its headers, names in lower case. */
  headers: Record<string, string>;
  /** Its body, parsed. */
  body: Record<string, unknown>;
}

/** The fixture server: its base URL, what it took, and what it answers next. */
export class FixtureModelServer {
  /** Requests taken, in order. */
  readonly seen: SeenRequest[] = [];
  #listener: Deno.TcpListener;
  #script: ScriptStep[] = [];
  #conns = new Set<Deno.Conn>();
  #serving: Promise<void>;

  private constructor(listener: Deno.TcpListener) {
    this.#listener = listener;
    this.#serving = this.#serve();
  }

  /** Starts a server on a free port of 127.0.0.1. */
  static start(): FixtureModelServer {
    return new FixtureModelServer(Deno.listen({ hostname: "127.0.0.1", port: 0 }));
  }

  /** The API's base URL, as a model's definition gives it. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.#listener.addr.port}/v1`;
  }

  /** Adds steps to the script. */
  script(...steps: ScriptStep[]): void {
    this.#script.push(...steps);
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.#listener.close();
    for (const conn of this.#conns) {
      try {
        conn.close();
      } catch { /* closed already */ }
    }
    await this.#serving;
  }

  async #serve(): Promise<void> {
    const handling: Promise<void>[] = [];
    try {
      for await (const conn of this.#listener) {
        this.#conns.add(conn);
        handling.push(this.#handle(conn).finally(() => this.#conns.delete(conn)));
      }
    } catch { /* closed */ }
    await Promise.allSettled(handling);
  }

  async #handle(conn: Deno.Conn): Promise<void> {
    try {
      const request = await readRequest(conn);
      if (!request) return;
      this.seen.push(request);
      const step = this.#script.shift() ??
        {
          status: 500,
          body: JSON.stringify({ error: { message: "the script has no step left" } }),
        };
      if ("drop" in step) return;
      if ("silent" in step) {
        // Answers nothing: waits for the client to give up and close.
        await conn.read(new Uint8Array(1)).catch(() => null);
        return;
      }
      const { status, body, headers } = responseOf(step);
      const head = [
        `HTTP/1.1 ${status} ${status === 200 ? "OK" : "Status"}`,
        "content-type: application/json",
        `content-length: ${new TextEncoder().encode(body).byteLength}`,
        "connection: close",
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        "",
        "",
      ].join("\r\n");
      await writeAll(conn, new TextEncoder().encode(head + body));
    } catch {
      /* the client went */
    } finally {
      try {
        conn.close();
      } catch { /* closed already */ }
    }
  }
}

function responseOf(
  step: Exclude<ScriptStep, { drop: true } | { silent: true }>,
): { status: number; body: string; headers: Record<string, string> } {
  if ("status" in step) {
    return { status: step.status, body: step.body, headers: step.headers ?? {} };
  }
  const content = "answer" in step ? JSON.stringify(step.answer) : step.content;
  const finish = "finish" in step ? step.finish ?? "stop" : "stop";
  const usage = "usage" in step && step.usage
    ? { prompt_tokens: step.usage.prompt, completion_tokens: step.usage.completion }
    : undefined;
  return {
    status: 200,
    headers: {},
    body: JSON.stringify({
      id: "fixture",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    }),
  };
}

async function readRequest(conn: Deno.Conn): Promise<SeenRequest | null> {
  let data: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  const buffer = new Uint8Array(64 * 1024);
  let headEnd = -1;
  while (headEnd < 0) {
    const n = await conn.read(buffer);
    if (n === null) return null;
    data = concat(data, buffer.subarray(0, n));
    headEnd = indexOfHeadEnd(data);
  }
  const head = new TextDecoder().decode(data.subarray(0, headEnd));
  const [line, ...rest] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const header of rest) {
    const colon = header.indexOf(":");
    if (colon > 0) {
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    }
  }
  const length = Number(headers["content-length"] ?? 0);
  let body: Uint8Array<ArrayBuffer> = data.subarray(headEnd + 4);
  while (body.byteLength < length) {
    const n = await conn.read(buffer);
    if (n === null) break;
    body = concat(body, buffer.subarray(0, n));
  }
  const text = new TextDecoder().decode(body);
  return {
    line: line.split(" ").slice(0, 2).join(" "),
    headers,
    body: text ? JSON.parse(text) : {},
  };
}

function indexOfHeadEnd(data: Uint8Array): number {
  for (let i = 0; i + 3 < data.length; i++) {
    if (data[i] === 13 && data[i + 1] === 10 && data[i + 2] === 13 && data[i + 3] === 10) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await conn.write(bytes.subarray(at));
}
