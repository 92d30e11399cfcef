/**
 * One request to the serve's local API over its socket, in plain HTTP/1.1
 * written here: a command the CLI sends is one POST whose answer streams
 * back. Deno's `fetch` client would cost the CLI process more memory and
 * start time than the rest of the command, and the CLI sends nothing else.
 *
 * @module
 */
import { thisPersonsOwnerSocket } from "./owner_socket.ts";

/** What is posted: the path on the serve's API, the installation's token and a JSON body. */
export interface OwnerPost {
  /** Such as `/api/owner/commands`. */
  path: string;
  /** The installation's token. */
  token: string;
  /** The JSON body, as text. */
  body: string;
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
    const { status, headers } = await readHead(reader);
    const chunked = /\bchunked\b/i.test(headers.get("transfer-encoding") ?? "");
    const length = headers.get("content-length");
    return {
      status,
      body: chunked
        ? chunkedBody(reader)
        : length !== undefined
        ? sizedBody(reader, Number(length))
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
  const [statusLine, ...lines] = (await reader.through("\r\n\r\n")).split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`an answer that is not HTTP: ${statusLine}`);
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
    const sizeLine = await reader.through("\r\n");
    const size = parseInt(sizeLine.split(";")[0].trim(), 16);
    if (!Number.isInteger(size) || size < 0) {
      throw new Error(`a chunk size that is none: ${sizeLine}`);
    }
    if (size === 0) return;
    yield await reader.exactly(size);
    await reader.through("\r\n");
  }
}

/** A body of a known length. */
async function* sizedBody(reader: ConnReader, length: number): AsyncGenerator<Uint8Array> {
  if (length > 0) yield await reader.exactly(length);
}

/** Reads a connection by delimiters and lengths, keeping what it read past them. */
class ConnReader {
  #conn: Deno.Conn;
  #held = new Uint8Array(0);
  #decoder = new TextDecoder();

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** The text up to `delimiter`, which is read and dropped. */
  async through(delimiter: string): Promise<string> {
    const bytes = new TextEncoder().encode(delimiter);
    for (let from = 0;;) {
      const at = indexOf(this.#held, bytes, from);
      if (at !== -1) {
        const text = this.#decoder.decode(this.#held.subarray(0, at));
        this.#held = this.#held.subarray(at + bytes.byteLength);
        return text;
      }
      from = Math.max(0, this.#held.byteLength - bytes.byteLength + 1);
      await this.#more();
    }
  }

  /** The next `length` bytes. */
  async exactly(length: number): Promise<Uint8Array> {
    while (this.#held.byteLength < length) await this.#more();
    const bytes = this.#held.slice(0, length);
    this.#held = this.#held.subarray(length);
    return bytes;
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
