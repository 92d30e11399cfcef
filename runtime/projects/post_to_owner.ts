/**
 * One request to the serve's local API over its socket, in plain HTTP/1.1
 * (`_socket_http.ts`): a command the CLI sends is one POST whose answer
 * streams back.
 *
 * @module
 */
import { exchange, OwnerAnswerError } from "./_socket_http.ts";
import { thisPersonsOwnerSocket } from "./owner_socket.ts";

export { OwnerAnswerError };

/** How long the serve may take to send its answer's status line and headers, in ms. */
export const OWNER_HEAD_TIMEOUT_MS = 30_000;

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
 * @throws {OwnerAnswerError} when no head comes in time, or what comes is not HTTP
 *   within the bounds `_socket_http.ts` sets.
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
  try {
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
    const sent = exchange(conn, {
      method: "POST",
      target: post.path,
      headers: [["authorization", `Bearer ${post.token}`], ["content-type", "application/json"]],
      body: new TextEncoder().encode(post.body),
    });
    const { status, body } = await Promise.race([sent, silence])
      .finally(() => clearTimeout(timer));
    return { status, body, close: () => closeQuietly(conn) };
  } catch (error) {
    closeQuietly(conn);
    throw error;
  }
}

/** Closes a connection that may be closed already. */
function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* closed already */ }
}
