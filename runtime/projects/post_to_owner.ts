/**
 * One request to the serve's local API over its socket, in plain HTTP/1.1
 * written here: a command the CLI sends is one POST whose answer streams
 * back. Deno's `fetch` client would cost the CLI process more memory and
 * start time than the rest of the command, and the CLI sends nothing else.
 *
 * @module
 */
import { thisPersonsOwnerSocket } from "./owner_socket.ts";

/** How long the serve may take to send its answer's status line and headers, in ms. */
export const OWNER_HEAD_TIMEOUT_MS = 30_000;

/** The most bytes the status line and headers may take. */
export const MAX_OWNER_HEAD_BYTES = 64 * 1024;

/** The largest chunk of a chunked body taken, in bytes (the serve sends a line a chunk). */
export const MAX_OWNER_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * What the serve answered could not be read as HTTP within the bounds above:
 * it sent no head in time (`silent`), or something that is not an answer.
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

/** What is posted: the path on the serve's API, the installation's token and a JSON body. */
export interface OwnerPost {
  /** Such as `/api/owner/commands`. */
  path: string;
  /** The installation's token. */
  token: string;
  /** The JSON body, as text. */
  body: string;
  /** How long the head may take, in ms ({@linkcode OWNER_HEAD_TIMEOUT_MS} by default). */
  headTimeoutMs?: number;
}

/** What the serve answered: its status, and its body as it arrives. */
export interface OwnerAnswer {
  /** The HTTP status. */
  status: number;
  /**
   * The body's bytes, as they arrive; it throws when the connection ends
   * before the answer does.
   */
  body: AsyncIterable<Uint8Array>;
  /** Lets go of the connection. */
  close(): void;
}

/**
 * Posts to the serve over the owner's socket, once the socket is found to be
 * this person's (`thisPersonsOwnerSocket`).
 *
 * @param home The installation folder.
 * @param post What to post.
 * @returns The answer; null when nothing answers on the socket, so nothing was sent.
 * @throws {UnsafeFileError} when the folder or the socket may not be this person's.
 * @throws {OwnerAnswerError} when no head comes in time, or
 *   what comes is not HTTP within the bounds above.
 * @throws {Error} when the connection ends before the answer's head arrives.
 */
export async function postToOwner(home: string, post: OwnerPost): Promise<OwnerAnswer | null> {
  const path = await thisPersonsOwnerSocket(home);
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path });
  } catch {
    return null; // No socket, or nothing listens there: nothing was sent.
  }
  const encoder = new TextEncoder();
  try {
    const body = encoder.encode(post.body);
    const head = `POST ${post.path} HTTP/1.1\r\nhost: localhost\r\n` +
      `authorization: Bearer ${post.token}\r\ncontent-type: application/json\r\n` +
      `content-length: ${body.byteLength}\r\nconnection: close\r\n\r\n`;
    await writeAll(conn, encoder.encode(head));
    await writeAll(conn, body);
    const reader = new ConnReader(conn);
    // The serve sends the head before it runs the command, so a head that
    // does not come is a serve that does not answer; the body, which lasts as
    // long as the command, has no deadline.
    const timeoutMs = post.headTimeoutMs ?? OWNER_HEAD_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new OwnerAnswerError(`no answer within ${timeoutMs / 1000} s`, true));
        closeQuietly(conn);
      }, timeoutMs);
    });
    const { status, headers } = await Promise.race([readHead(reader), silence])
      .finally(() => clearTimeout(timer));
    const chunked = /\bchunked\b/i.test(headers.get("transfer-encoding") ?? "");
    const length = headers.get("content-length");
    return {
      status,
      body: chunked
        ? chunkedBody(reader)
        : length !== undefined
        ? reader.upTo(contentLength(length))
        : reader.rest(),
      close: () => closeQuietly(conn),
    };
  } catch (error) {
    closeQuietly(conn);
    throw error;
  }
}

/** Writes every byte. */
async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.byteLength;) at += await conn.write(bytes.subarray(at));
}

/** Closes a connection that may be closed already. */
function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* closed already */ }
}

/** The status line and the headers (names lowercased). */
async function readHead(
  reader: ConnReader,
): Promise<{ status: number; headers: Map<string, string> }> {
  for (;;) {
    const head = await readOneHead(reader);
    // A 1xx head (100 Continue) is followed by the answer's own.
    if (head.status >= 200) return head;
  }
}

/** One status line and its headers, within {@linkcode MAX_OWNER_HEAD_BYTES}. */
async function readOneHead(
  reader: ConnReader,
): Promise<{ status: number; headers: Map<string, string> }> {
  const [statusLine, ...lines] = (await reader.through("\r\n\r\n", MAX_OWNER_HEAD_BYTES))
    .split("\r\n");
  const code = /^HTTP\/1\.[01] ([1-5]\d\d)(?: |$)/.exec(statusLine)?.[1];
  if (code === undefined) {
    throw new OwnerAnswerError(`an answer that is not HTTP: ${statusLine.slice(0, 200)}`);
  }
  const status = Number(code);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
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
    if (!(size <= MAX_OWNER_CHUNK_BYTES)) {
      throw new OwnerAnswerError(
        `a chunk size that is none, or past ${MAX_OWNER_CHUNK_BYTES} bytes: ${
          sizeLine.slice(0, 40)
        }`,
      );
    }
    if (size === 0) return;
    yield* reader.upTo(size);
    await reader.through("\r\n", 2);
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
    const bytes = new TextEncoder().encode(delimiter);
    for (let from = 0;;) {
      const at = indexOf(this.#held, bytes, from);
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
