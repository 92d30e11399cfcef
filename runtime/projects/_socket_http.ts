/**
 * One HTTP/1.1 exchange over a connection to the serve's socket, written
 * here: the request, then the answer's status line and headers, and its body
 * as it arrives (sent in chunks, of a known length, or until the connection
 * ends). The clients of the owner's socket (`postToOwner`,
 * `ownerSocketClient`) send through it rather than through Deno's `fetch`,
 * whose first use costs a process that starts for one command (the CLI, an
 * MCP client's `sync mcp`) more memory and start time than the rest of what
 * it does. Each exchange has a connection of its own (`connection: close`).
 *
 * @module
 */

/** A request to write. */
export interface SocketRequest {
  /** Such as `POST`. */
  method: string;
  /** The path and query, such as `/mcp?project=%2Fsite`. */
  target: string;
  /** Headers beside `host`, `content-length` and `connection`, which are written here. */
  headers: Iterable<[string, string]>;
  /** The body's bytes, if any. */
  body?: Uint8Array;
}

/** What the other end answered. */
export interface SocketAnswer {
  /** The HTTP status. */
  status: number;
  /** Each header as sent, its name lowercased. */
  headers: [string, string][];
  /**
   * The body's bytes, as they arrive; it throws when the connection ends
   * before the body does.
   */
  body: AsyncGenerator<Uint8Array>;
}

const encoder = new TextEncoder();

/** The most bytes an answer's status line and headers may take. */
export const MAX_HEAD_BYTES = 64 * 1024;

/** The largest chunk of a chunked body taken, in bytes (the serve sends a line or an event a chunk). */
export const MAX_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * What the other end answered could not be read as HTTP within the bounds
 * above, or (`silent`) sent no head in the time its caller gave it.
 */
export class OwnerAnswerError extends Error {
  /** The error's name. */
  override name = "OwnerAnswerError";
  /** True when nothing came in time, rather than something unreadable. */
  readonly silent: boolean;

  /** An answer that could not be read, saying why. */
  constructor(message: string, silent = false) {
    super(message);
    this.silent = silent;
  }
}

/**
 * Writes `request` on `conn` and reads the answer's head; the body is read
 * as it is consumed.
 *
 * @throws {TypeError} when a header holds a line break, so the request would not be the one meant.
 * @throws {OwnerAnswerError} when the head is not HTTP, or is longer than {@linkcode MAX_HEAD_BYTES}.
 * @throws {Error} when the connection fails or ends before the answer's head arrives.
 */
export async function exchange(conn: Deno.Conn, request: SocketRequest): Promise<SocketAnswer> {
  let head = `${request.method} ${request.target} HTTP/1.1\r\nhost: localhost\r\n`;
  for (const [name, value] of request.headers) {
    if (/[\r\n]/.test(name + value)) throw new TypeError(`a header with a line break: ${name}`);
    head += `${name}: ${value}\r\n`;
  }
  if (request.body !== undefined) head += `content-length: ${request.body.byteLength}\r\n`;
  head += "connection: close\r\n\r\n";
  await writeAll(conn, encoder.encode(head));
  if (request.body !== undefined) await writeAll(conn, request.body);
  const reader = new ConnReader(conn);
  const { status, headers } = await readHead(reader);
  const header = (name: string) => headers.find(([key]) => key === name)?.[1];
  const lengths = new Set(headers.filter(([key]) => key === "content-length").map(([, v]) => v));
  if (lengths.size > 1) {
    throw new OwnerAnswerError(
      `content-length given twice, differently: ${[...lengths].join(", ")}`,
    );
  }
  const length = header("content-length");
  const body = request.method === "HEAD" || status === 204 || status === 304
    ? reader.upTo(0)
    : isChunked(header("transfer-encoding"))
    ? chunkedBody(reader)
    : length !== undefined
    ? reader.upTo(contentLength(length))
    : reader.rest();
  return { status, headers, body };
}

/** Writes every byte. */
async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.byteLength;) at += await conn.write(bytes.subarray(at));
}

/** The status line and the headers (names lowercased). */
async function readHead(
  reader: ConnReader,
): Promise<{ status: number; headers: [string, string][] }> {
  // A 1xx head (100 Continue) is followed by the answer's own; a few are
  // all an owner has reason to send.
  for (let heads = 0; heads < MAX_INFORMATIONAL_HEADS; heads++) {
    const head = await readOneHead(reader);
    if (head.status >= 200) return head;
  }
  throw new OwnerAnswerError(`more than ${MAX_INFORMATIONAL_HEADS} 1xx heads before the answer`);
}

/** The most 1xx heads taken before an answer's own. */
const MAX_INFORMATIONAL_HEADS = 8;

/** Whether `transfer-encoding` ends with `chunked`, the one coding an HTTP/1.1 body may end in. */
function isChunked(value: string | undefined): boolean {
  if (value === undefined) return false;
  const codings = value.split(",").map((coding) => coding.trim().toLowerCase());
  return codings.at(-1) === "chunked";
}

/** One status line and its headers, within {@linkcode MAX_HEAD_BYTES}. */
async function readOneHead(
  reader: ConnReader,
): Promise<{ status: number; headers: [string, string][] }> {
  const [statusLine, ...lines] = (await reader.through("\r\n\r\n", MAX_HEAD_BYTES))
    .split("\r\n");
  const code = /^HTTP\/1\.[01] ([1-5]\d\d)(?: |$)/.exec(statusLine)?.[1];
  if (code === undefined) {
    throw new OwnerAnswerError(`an answer that is not HTTP: ${statusLine.slice(0, 200)}`);
  }
  const status = Number(code);
  const headers: [string, string][] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
    }
  }
  return { status, headers };
}

/** A body sent in chunks, each after its size in hex; a chunk of size 0 ends it. */
async function* chunkedBody(reader: ConnReader): AsyncGenerator<Uint8Array> {
  for (;;) {
    const sizeLine = await reader.through("\r\n", 1024);
    const hex = sizeLine.split(";")[0].trim();
    const size = /^[0-9a-f]{1,8}$/i.test(hex) ? parseInt(hex, 16) : NaN;
    if (!(size <= MAX_CHUNK_BYTES)) {
      throw new OwnerAnswerError(
        `a chunk size that is none, or past ${MAX_CHUNK_BYTES} bytes: ${sizeLine.slice(0, 40)}`,
      );
    }
    if (size === 0) return;
    yield* reader.upTo(size);
    if ((await reader.through("\r\n", 2)) !== "") {
      throw new OwnerAnswerError("a chunk longer than its size says");
    }
  }
}

/** The length a `content-length` header gives. */
function contentLength(value: string): number {
  if (!/^\d{1,15}$/.test(value)) {
    throw new OwnerAnswerError(`a content-length that is none: ${value.slice(0, 40)}`);
  }
  return Number(value);
}

/** Reads a connection by delimiters and lengths, keeping what it read past them. */
class ConnReader {
  #conn: Deno.Conn;
  #held = new Uint8Array(0);
  #decoder = new TextDecoder();

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** The text up to `delimiter`, which is read and dropped; at most `max` bytes before it. */
  async through(delimiter: string, max: number): Promise<string> {
    const bytes = encoder.encode(delimiter);
    for (let from = 0;;) {
      const at = indexOf(this.#held, bytes, from);
      if (at > max) {
        throw new OwnerAnswerError(`a line of the head, or a chunk size, past ${max} bytes`);
      }
      if (at !== -1) {
        const text = this.#decoder.decode(this.#held.subarray(0, at));
        this.#held = this.#held.subarray(at + bytes.byteLength);
        return text;
      }
      if (this.#held.byteLength > max + bytes.byteLength) {
        throw new OwnerAnswerError(`a line of the head, or a chunk size, past ${max} bytes`);
      }
      from = Math.max(0, this.#held.byteLength - bytes.byteLength + 1);
      await this.#more();
    }
  }

  /** The next `length` bytes, as they come: never more than a read's worth is kept. */
  async *upTo(length: number): AsyncGenerator<Uint8Array> {
    for (let left = length; left > 0;) {
      if (this.#held.byteLength === 0) await this.#more();
      const bytes = this.#held.slice(0, left);
      this.#held = this.#held.subarray(bytes.byteLength);
      left -= bytes.byteLength;
      yield bytes;
    }
  }

  /** Everything until the connection ends. */
  async *rest(): AsyncGenerator<Uint8Array> {
    if (this.#held.byteLength > 0) yield this.#held;
    this.#held = new Uint8Array(0);
    const buffer = new Uint8Array(16 * 1024);
    for (;;) {
      const read = await this.#conn.read(buffer);
      if (read === null) return;
      yield buffer.slice(0, read);
    }
  }

  async #more(): Promise<void> {
    const buffer = new Uint8Array(16 * 1024);
    const read = await this.#conn.read(buffer);
    if (read === null) throw new Error("the connection ended before the answer did");
    const held = new Uint8Array(this.#held.byteLength + read);
    held.set(this.#held);
    held.set(buffer.subarray(0, read), this.#held.byteLength);
    this.#held = held;
  }
}

/** Where `needle` starts in `bytes` at or after `from`; -1 when it does not. */
function indexOf(bytes: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i + needle.byteLength <= bytes.byteLength; i++) {
    for (let j = 0; j < needle.byteLength; j++) if (bytes[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
