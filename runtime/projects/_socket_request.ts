/**
 * A request over the owner's socket as a long-lived client (`sync mcp`)
 * sends it: one HTTP/1.1 exchange on a connection of its own
 * (`_socket_http.ts`), whose answer's body is read as it arrives, for as
 * long as the other end keeps it open (an MCP event stream). It fails as
 * `fetch` does: a `TypeError` when the socket cannot be reached, answers no
 * HTTP or breaks off the body, the signal's reason once aborted. The answer
 * is no `Response`: building one, with the web streams under it, took a
 * process that starts for one MCP client longer than the rest of its
 * request did.
 *
 * @module
 */
import { exchange } from "./_socket_http.ts";
import { OwnerCutOffError, OwnerUnreachedError } from "./owner_socket_errors.ts";

/** A request to send over the owner's socket. */
export interface OwnerSocketRequest {
  /** Such as `POST`. */
  method: string;
  /** Its headers. */
  headers: Iterable<[string, string]>;
  /** Its body, as text. */
  body?: string;
  /** Closes the connection when aborted: the request fails, or its body, with the signal's reason. */
  signal?: AbortSignal;
}

/** What the owner answered. */
export interface OwnerSocketAnswer {
  /** The HTTP status. */
  status: number;
  /** A header's value, its name in any case; null when it was not sent. */
  header(name: string): string | null;
  /**
   * The body's bytes as they arrive; it throws a `TypeError` when the
   * connection breaks before the body ends, and the signal's reason once aborted.
   */
  body: AsyncIterable<Uint8Array>;
  /** Stops reading the body: the connection is closed. */
  cancel(): void;
}

/**
 * Sends a request over the socket at `path`, whatever the URL's host says.
 *
 * @param path The socket, already found to be this person's.
 * @param url Its path and query are sent.
 * @param request The method, headers, body and signal.
 * @param open The connections under way, which {@linkcode closeAll} closes.
 * @throws {OwnerUnreachedError} when the socket cannot be reached: nothing was sent.
 * @throws {OwnerCutOffError} when it answers no HTTP, or breaks off: the request was sent.
 */
export async function socketRequest(
  path: string,
  url: URL,
  request: OwnerSocketRequest,
  open: Set<Deno.Conn>,
): Promise<OwnerSocketAnswer> {
  const { signal } = request;
  signal?.throwIfAborted();
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path });
  } catch (error) {
    // As `fetch` words it, so that the bridge tells a busy socket from a gone one.
    throw new OwnerUnreachedError(`could not reach ${path} (Connect): ${messageOf(error)}`, {
      cause: error,
    });
  }
  const done = () => {
    open.delete(conn);
    signal?.removeEventListener("abort", done);
    closeQuietly(conn);
  };
  open.add(conn);
  signal?.addEventListener("abort", done, { once: true });
  // Aborted while connecting: the listener came too late to hear it.
  if (signal?.aborted) done();
  let answer;
  try {
    answer = await exchange(conn, {
      method: request.method,
      target: url.pathname + url.search,
      headers: request.headers,
      body: request.body === undefined ? undefined : new TextEncoder().encode(request.body),
    });
  } catch (error) {
    done();
    if (signal?.aborted) throw signal.reason;
    throw new OwnerCutOffError(`${path} gave no answer: ${messageOf(error)}`, { cause: error });
  }
  const { status, headers, body } = answer;
  return {
    status,
    header: (name) => headers.find(([key]) => key === name.toLowerCase())?.[1] ?? null,
    body: bodyOf(body, path, signal, done),
    cancel: done,
  };
}

/** The body's bytes; the connection is closed once it ends, breaks, or is let go of. */
async function* bodyOf(
  body: AsyncGenerator<Uint8Array>,
  path: string,
  signal: AbortSignal | undefined,
  done: () => void,
): AsyncGenerator<Uint8Array> {
  try {
    yield* body;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new OwnerCutOffError(`${path} broke off its answer: ${messageOf(error)}`, {
      cause: error,
    });
  } finally {
    done();
  }
}

/** Closes every connection under way: their answers end with an error. */
export function closeAll(open: Set<Deno.Conn>): void {
  for (const conn of open) closeQuietly(conn);
  open.clear();
}

/** Closes a connection that may be closed already. */
function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* closed already */ }
}

/** An error's message, whatever was thrown. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
