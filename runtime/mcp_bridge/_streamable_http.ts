/**
 * MCP's Streamable HTTP transport, the client's side, as far as the bridge
 * uses it: one session at one URL, with a Bearer token.
 *
 * - Each message is POSTed alone, accepting `application/json` and
 *   `text/event-stream`. The `Mcp-Session-Id` the answer to `initialize`
 *   carries goes on every later request, and so does `MCP-Protocol-Version`,
 *   the version that answer names.
 * - A request is answered as JSON (one message or several) or as an event
 *   stream whose `message` events are the answer and anything the server
 *   sends before it; a notification or an answer is taken with 202.
 * - Once `notifications/initialized` is taken, a GET opens the stream the
 *   server tells the client things on unasked (`tools/list_changed`); when
 *   it ends it is opened again, after the server's `retry:` or a backoff
 *   (kept from 1 s to 60 s), with `Last-Event-ID` if the server gave ids:
 *   twice at most in a row when it fails to open, and three times when it
 *   opens and ends with no message in it, after which it is opened no more
 *   and the client is told. A 405 there means the server keeps no such stream.
 * - What the server sends is bounded: an event or a JSON answer past 10 MiB
 *   ends its request with an error, and a refusal's body is read up to
 *   64 KiB and quoted up to 200 characters.
 * - {@linkcode StreamableHttpClient.terminateSession} DELETEs the session.
 *
 * A request whose event stream ends before its answer is told
 * ({@linkcode StreamableHttpClientOptions.onunanswered}): the server keeps no
 * events to resume it from, so the answer is lost.
 *
 * A refusal (any status but 2xx) is thrown as an {@linkcode HttpRefusalError}
 * with the body's text, 404 meaning the server no longer has the session;
 * a failure to reach the server is a `TypeError`, as `fetch` throws it. What goes wrong on
 * the GET stream is nobody's to answer, and is not reported: the next POST
 * finds it out.
 *
 * @module
 */
import {
  isRequest,
  type JsonRpcId,
  type JsonRpcMessage,
  methodOf,
  readJsonRpc,
} from "./_json_rpc.ts";
import { MAX_EVENT_CHARS, sseEvents, SseEventTooLongError } from "./_sse_events.ts";

/** The most characters of a refusal's body its message quotes. */
const QUOTED_CHARS = 200;

/** The most bytes of a refusal's body read: enough for a JSON-RPC error. */
const MAX_REFUSAL_BYTES = 64 * 1024;

/** The most bytes of an answer given as JSON: as long as a line the bridge reads on stdin. */
const MAX_JSON_ANSWER_BYTES = MAX_EVENT_CHARS;

/** What the server answered instead of taking a message. */
export class HttpRefusalError extends Error {
  /** The error's name. */
  override name = "HttpRefusalError";
  /** The HTTP status. */
  readonly status: number;
  /** The body's text (a JSON-RPC error, from an MCP server). */
  readonly body: string;

  /** A refusal with `status` and the body's `text` (of which the message quotes the start). */
  constructor(status: number, body: string) {
    const quoted = body.length > QUOTED_CHARS ? `${body.slice(0, QUOTED_CHARS)}…` : body;
    super(`it answered HTTP ${status}${quoted ? `: ${quoted}` : ""}`);
    this.status = status;
    this.body = body;
  }
}

/** A request as {@linkcode HttpSend} takes it. */
export interface HttpRequest {
  /** Such as `POST`. */
  method: string;
  /** Its headers, names lowercased. */
  headers: [string, string][];
  /** Its body, as text. */
  body?: string;
  /** Stops the request, or the reading of its answer. */
  signal?: AbortSignal;
}

/** An answer as {@linkcode HttpSend} gives it. */
export interface HttpAnswer {
  /** The HTTP status. */
  status: number;
  /** A header's value; null when it was not sent. */
  header(name: string): string | null;
  /** The body's bytes as they arrive. */
  body: AsyncIterable<Uint8Array>;
  /** Stops reading the body. */
  cancel(): void;
}

/**
 * Sends one request and answers once the answer's head has come; throws a
 * `TypeError` when the server cannot be reached. A redirect is answered,
 * never followed: the token goes to this URL and no other.
 */
export type HttpSend = (url: URL, request: HttpRequest) => Promise<HttpAnswer>;

/** {@linkcode HttpSend} with the global `fetch`, for a server on the network. */
async function fetchSend(url: URL, request: HttpRequest): Promise<HttpAnswer> {
  const response = await fetch(url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    redirect: "manual",
  });
  return {
    status: response.status,
    header: (name) => response.headers.get(name),
    body: response.body ?? (async function* () {})(),
    cancel: () => void response.body?.cancel().catch(() => {}),
  };
}

/** Options for {@linkcode StreamableHttpClient}. */
export interface StreamableHttpClientOptions {
  /** The Bearer token every request carries. */
  token: string;
  /** How requests are sent (over the owner's socket); with the global `fetch` without it. */
  send?: HttpSend;
  /** Each message from the server. */
  onmessage: (message: JsonRpcMessage) => void;
  /** Something the server sent that is no JSON-RPC message (it is skipped). */
  onerror: (error: Error) => void;
  /**
   * A request whose answer did not come where it was due: its event stream
   * ended, or broke, before it (the server went away mid-answer, or the
   * client was closed), or the answer to it sent nothing for it. The server
   * keeps no events to resume the stream from, so the answer will not come.
   * `why` is said when the bridge dropped the stream itself (an event too long).
   */
  onunanswered?: (id: JsonRpcId, why?: string) => void;
  /**
   * The GET stream kept ending with no message in it, and is opened no more:
   * what the server tells unasked no longer comes. Requests still work.
   */
  onstreamstopped?: (why: string) => void;
}

/** True when `message` answers the request `id`. */
function isAnswerTo(message: JsonRpcMessage, id: JsonRpcId | undefined): boolean {
  return id !== undefined && !Object.hasOwn(message, "method") && idOf(message) === id;
}

/** A message's id, if it has one. */
function idOf(message: JsonRpcMessage): JsonRpcId | undefined {
  return (message as { id?: JsonRpcId }).id;
}

/** True for a 2xx answer. */
function ok(answer: HttpAnswer): boolean {
  return answer.status >= 200 && answer.status <= 299;
}

/** Tries in a row to open the GET stream again once it failed to open. */
const REOPEN_TRIES = 2;

/** Times in a row the GET stream is opened again when it ended with no message in it. */
const QUIET_REOPENS = 3;

/** The shortest and longest pause before the GET stream is opened again, in ms. */
const REOPEN_DELAY_MS = { min: 1000, max: 60_000 };

/**
 * The pause before the try `attempt` (from 0), in ms: the server's `retry:`
 * or 1 s, then 1.5 s, …, kept from 1 s to 60 s whatever the server says.
 */
function reopenDelayMs(attempt: number, retryMs: number | undefined): number {
  const wanted = retryMs ?? 1000 * 1.5 ** attempt;
  return Math.min(REOPEN_DELAY_MS.max, Math.max(REOPEN_DELAY_MS.min, wanted));
}

/** The body's text, up to `maxBytes`; the rest is not read. */
async function startOf(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for await (const chunk of body) {
    text += decoder.decode(chunk.subarray(0, maxBytes - bytes), { stream: true });
    bytes += chunk.byteLength;
    if (bytes >= maxBytes) break;
  }
  return text + decoder.decode();
}

/**
 * The body's text, whole.
 *
 * @throws {RangeError} past `maxBytes`: the rest is not read.
 */
async function boundedText(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) {
      throw new RangeError(`an answer longer than ${maxBytes / 1024 / 1024} MiB`);
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** One session with an MCP server over Streamable HTTP. */
export class StreamableHttpClient {
  #url: URL;
  #options: StreamableHttpClientOptions;
  #abort = new AbortController();
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  /** Ids of `initialize` requests sent and not yet answered. */
  #initializing = new Set<string | number>();
  #streamOpen = false;
  #lastEventId: string | undefined;
  #retryMs: number | undefined;
  #reopenTimer: ReturnType<typeof setTimeout> | undefined;
  /** A message came on the GET stream since it was last opened. */
  #heard = false;

  /** A client of the server at `url`; nothing is sent until a message is. */
  constructor(url: URL, options: StreamableHttpClientOptions) {
    this.#url = url;
    this.#options = options;
  }

  /** The session's id, once the server gave one. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /**
   * Sends one message. Settles once the server took it: a JSON answer read,
   * an event stream begun (its events come to `onmessage` as they arrive),
   * or 202.
   *
   * @throws {HttpRefusalError} when the server answers with another status.
   * @throws {TypeError} when the server cannot be reached.
   */
  async send(message: JsonRpcMessage): Promise<void> {
    if (isRequest(message) && message.method === "initialize") {
      this.#initializing.add(message.id);
    }
    const headers = this.#headers();
    headers.push(["content-type", "application/json"]);
    headers.push(["accept", "application/json, text/event-stream"]);
    const response = await this.#send({
      method: "POST",
      headers,
      body: JSON.stringify(message),
    });
    const sessionId = response.header("mcp-session-id");
    if (sessionId) this.#sessionId = sessionId;
    if (!ok(response)) {
      const text = await startOf(response.body, MAX_REFUSAL_BYTES).catch(() => "");
      response.cancel();
      throw new HttpRefusalError(response.status, text);
    }
    if (response.status === 202 || !isRequest(message)) {
      response.cancel();
      if (response.status === 202 && methodOf(message) === "notifications/initialized") {
        this.#openStream(0);
      }
      // A request taken with no answer to come.
      if (isRequest(message)) this.#options.onunanswered?.(message.id);
      return;
    }
    const type = response.header("content-type")?.split(";")[0].trim().toLowerCase();
    if (type === "text/event-stream") {
      const id = message.id;
      void this.#readEvents(response.body, id).then(
        (answered) => {
          if (!answered) this.#options.onunanswered?.(id);
        },
        (error) => {
          // The stream is dropped where it broke, or where it sent more than is read.
          response.cancel();
          const why = error instanceof SseEventTooLongError ? error.message : undefined;
          this.#options.onunanswered?.(id, why);
        },
      );
    } else if (type === "application/json") {
      let text: string;
      try {
        text = await boundedText(response.body, MAX_JSON_ANSWER_BYTES);
      } finally {
        response.cancel();
      }
      const data: unknown = JSON.parse(text);
      let answered = false;
      for (const item of Array.isArray(data) ? data : [data]) {
        const received = this.#receive(JSON.stringify(item));
        if (received && isAnswerTo(received, message.id)) answered = true;
      }
      if (!answered) this.#options.onunanswered?.(message.id);
    } else {
      response.cancel();
      throw new HttpRefusalError(response.status, `an answer of type ${type ?? "none"}`);
    }
  }

  /**
   * Ends the session at the server (DELETE); a server that keeps sessions
   * open answers 405, which is no failure.
   *
   * @throws {HttpRefusalError} when the server refuses it.
   */
  async terminateSession(): Promise<void> {
    if (this.#sessionId === undefined) return;
    const response = await this.#send({ method: "DELETE", headers: this.#headers() });
    response.cancel();
    if (!ok(response) && response.status !== 405) {
      throw new HttpRefusalError(response.status, "");
    }
    this.#sessionId = undefined;
  }

  /** Stops everything under way: the GET stream, answers streaming in, a reopening. */
  close(): void {
    clearTimeout(this.#reopenTimer);
    this.#abort.abort();
  }

  #headers(): [string, string][] {
    const headers: [string, string][] = [["authorization", `Bearer ${this.#options.token}`]];
    if (this.#sessionId !== undefined) headers.push(["mcp-session-id", this.#sessionId]);
    if (this.#protocolVersion !== undefined) {
      headers.push(["mcp-protocol-version", this.#protocolVersion]);
    }
    return headers;
  }

  #send(request: Omit<HttpRequest, "signal">): Promise<HttpAnswer> {
    // A redirect is a refusal (it is answered, never followed): the token goes to this URL and no other.
    return (this.#options.send ?? fetchSend)(this.#url, { ...request, signal: this.#abort.signal });
  }

  /**
   * Reads one message the server sent, and gives it on; the version an
   * `initialize` answer names is kept. Null when it is no message.
   */
  #receive(text: string): JsonRpcMessage | null {
    let message: JsonRpcMessage;
    try {
      message = readJsonRpc(text);
    } catch (error) {
      this.#options.onerror(error as Error);
      return null;
    }
    const id = idOf(message);
    if (!Object.hasOwn(message, "method") && id !== undefined) {
      if (this.#initializing.delete(id)) {
        const version = (message as { result?: { protocolVersion?: unknown } }).result
          ?.protocolVersion;
        if (typeof version === "string") this.#protocolVersion = version;
      }
    }
    this.#options.onmessage(message);
    return message;
  }

  /**
   * Reads an event stream's messages until it ends; true when the answer to
   * request `awaited` was among them. Throws when the stream breaks.
   */
  async #readEvents(body: AsyncIterable<Uint8Array>, awaited?: JsonRpcId): Promise<boolean> {
    let answered = false;
    const events = sseEvents(body, { onRetry: (ms) => this.#retryMs = ms });
    for await (const { event, data, id } of events) {
      if (id !== undefined) this.#lastEventId = id;
      if (data === "" || (event !== "" && event !== "message")) continue;
      const message = this.#receive(data);
      if (message) this.#heard = true;
      if (message && isAnswerTo(message, awaited)) answered = true;
    }
    return answered;
  }

  /**
   * Opens the GET stream, once at a time; when it ends or breaks, opens it
   * again after a pause: up to {@linkcode REOPEN_TRIES} tries in a row when
   * it fails to open, and {@linkcode QUIET_REOPENS} when it opens and ends
   * with no message in it, after which it is opened no more (and told).
   */
  #openStream(attempt: number): void {
    if (this.#streamOpen || this.#abort.signal.aborted) return;
    this.#streamOpen = true;
    void (async () => {
      const headers = this.#headers();
      headers.push(["accept", "text/event-stream"]);
      if (this.#lastEventId !== undefined) headers.push(["last-event-id", this.#lastEventId]);
      let opened = false;
      this.#heard = false;
      try {
        const response = await this.#send({ method: "GET", headers });
        if (!ok(response)) {
          response.cancel();
          // 405: the server keeps no such stream; 404: it no longer has the session.
          if (response.status === 405 || response.status === 404) return;
          throw new HttpRefusalError(response.status, "");
        }
        opened = true;
        // Messages come to `onmessage` as they arrive; none is awaited.
        await this.#readEvents(response.body).finally(() => response.cancel());
      } catch {
        // Told by the next POST, which finds the server gone or the session lost.
      } finally {
        this.#streamOpen = false;
      }
      if (this.#abort.signal.aborted) return;
      const next = this.#heard ? 0 : attempt + 1;
      if (!opened && next >= REOPEN_TRIES) return;
      if (opened && next > QUIET_REOPENS) {
        this.#options.onstreamstopped?.(
          `the stream it tells things on unasked ended ${next} times in a row with nothing ` +
            `in it; it is opened no more, and requests go on as before`,
        );
        return;
      }
      this.#reopenTimer = setTimeout(
        () => this.#openStream(next),
        reopenDelayMs(next, this.#retryMs),
      );
    })();
  }
}
