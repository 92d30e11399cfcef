/**
 * sync-mcp on stdio, as a bridge: every message an MCP client writes on
 * stdin is sent to the `/mcp` of the serve that owns the installation, and
 * every message from there is written to stdout. The bridge holds no state
 * of the installation, so a client that stays connected all day never keeps
 * the clock, the CLI or the app from the installation.
 *
 * A client that stays connected all day outlives its session there: the
 * serve is stopped and started again, or the session idles out. The bridge
 * keeps the client's own `initialize` and, when the owner no longer has the
 * session, opens a new one with it — finding the owner again, or starting
 * one — and sends on what the client sent, so the client never sees the
 * seam, except that the tools are said to have changed.
 *
 * A client may write its `initialize`, `initialized` and first requests at
 * once; what follows the `initialize` is held, in order, until the owner has
 * answered it, since the session there exists only from then on. So is a
 * request written before any `initialize`: it goes once the first one is
 * answered (or is refused, if stdin ends with no `initialize` at all). What is
 * held before any `initialize` is bounded ({@linkcode BRIDGE_LIMITS}): past it a
 * request is refused at once, saying to send `initialize` first, and a
 * notification is dropped; once an `initialize` has come, the bridge instead
 * stops reading stdin while too much waits. A
 * `ping` is answered by the bridge itself until the first `initialize` is
 * answered, since MCP allows a ping at any time and there is no session to
 * send it to yet; afterwards it goes to the owner like any request.
 *
 * Messages go to the owner in the order they were read, a few at once
 * (`_bridge_queue.ts`); answers come back as the owner gives them.
 *
 * The bridge sends the token and the project's path only where its caller
 * says: `sync mcp` gives it the owner's socket in the installation folder.
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
import type { OwnerSocketClient } from "../projects/mod.ts";
import { BridgeQueue, messageBytes } from "./_bridge_queue.ts";
import { BRIDGE_LIMITS, type BridgeLimits } from "./mcp_limits.ts";

/** Where the owner's `/mcp` is, and the token it takes. */
export interface BridgeTarget {
  /** The owner's `/mcp` URL, with `?project=`. */
  url: URL;
  /** The installation's token. */
  token: string;
  /** What the bridge calls the owner in what it says, such as `the serve (pid 4242)`. */
  name: string;
  /**
   * The connection the session's requests go over (the owner's socket),
   * closed with the session; without it, the URL's host is reached.
   */
  socket?: OwnerSocketClient;
}

/** Options for {@linkcode bridgeStdio}. */
export interface BridgeOptions extends BridgeTarget {
  /** Where the bridge says what went wrong (stderr: stdout is the protocol's). */
  log: (line: string) => void;
  /**
   * Finds the owner's `/mcp` again, starting a serve when none runs, once the
   * owner is gone or no longer has the bridge's session. Without it, what the
   * client sends then is answered with an error saying so.
   */
  reconnect?: () => Promise<BridgeTarget>;
  /** How long a new session's `initialize` may take, in ms (10 s by default). */
  initializeTimeoutMs?: number;
  /** How much the bridge holds and sends at once ({@linkcode BRIDGE_LIMITS} by default). */
  limits?: BridgeLimits;
  /**
   * Told, each time it changes, how many messages are at the owner (a request
   * until it is answered) and how many wait for their turn.
   */
  observe?: (state: { inFlight: number; waiting: number }) => void;
}

/** One session at the owner, and the transport it goes over. */
interface Link {
  http: StreamableHTTPClientTransport;
  /** What the owner is called, for what the bridge says. */
  name: string;
  /** The connection the transport goes over, when it is not the global `fetch`'s. */
  socket?: OwnerSocketClient;
}

/** Closes a session's transport and the connection under it. */
async function closeLink(link: Link): Promise<void> {
  await link.http.close().catch(() => {});
  link.socket?.close();
}

/** The JSON-RPC method of a message, if it has one. */
function methodOf(message: JSONRPCMessage): string | undefined {
  return "method" in message ? message.method : undefined;
}

/**
 * True when a send failed because the owner is gone (nothing listens) or no
 * longer has the session (it answers 404): what a new session mends.
 */
function sessionLost(error: unknown): boolean {
  if ((error as { code?: unknown } | null)?.code === 404) return true;
  return error instanceof TypeError;
}

/**
 * True when what the SDK's HTTP transport reports on `onerror` only says the
 * owner went away: its stream broke, or reconnecting it failed. The bridge
 * says that once, in its own words, when it opens a new session; the send
 * that failed is answered by the bridge either way.
 */
function goneNoise(error: unknown): boolean {
  if (sessionLost(error)) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /^(SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts)/.test(
    message,
  ) || /^Streamable HTTP error: Failed to open SSE stream/.test(message);
}

/**
 * The JSON-RPC error the owner answered a message with, when its refusal
 * (a 4xx the SDK's transport throws with the body's text) carried one.
 */
function refusalOf(error: unknown): { code: number; message: string } | null {
  const status = (error as { code?: unknown } | null)?.code;
  if (typeof status !== "number" || status < 400 || status > 499) return null;
  const text = /^Streamable HTTP error: Error POSTing to endpoint: (\{.*\})$/s.exec(
    (error as Error).message,
  )?.[1];
  if (text === undefined) return null;
  try {
    const { error: refused } = JSON.parse(text);
    return typeof refused?.code === "number" && typeof refused?.message === "string"
      ? { code: refused.code, message: refused.message }
      : null;
  } catch {
    return null;
  }
}

/**
 * True when the owner's socket turned the connection away because its queue
 * of connections waiting to be accepted was full (EAGAIN): something listens
 * there — only the owner does, in this person's installation folder — and the
 * message never reached it, so sending it again cannot make it happen twice.
 */
function socketBusy(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const cause = (error as { cause?: unknown }).cause;
  const text = `${error.message} ${cause instanceof Error ? cause.message : String(cause)}`;
  return /\(Connect\): Resource temporarily unavailable/.test(text);
}

/**
 * What the bridge says of a line on stdin the SDK's stdio transport could not
 * read (it reports it on `onerror` and reads on).
 */
function unreadLine(error: unknown): string {
  if (error instanceof SyntaxError) {
    return `a line on stdin is not JSON (${error.message}); it was not answered`;
  }
  if ((error as { name?: unknown } | null)?.name === "ZodError") {
    return "a line on stdin is JSON but not a JSON-RPC message; it was not answered";
  }
  return `stdin: ${describeError(error).message}`;
}

/**
 * Bridges stdin and stdout to the owner's `/mcp` until stdin ends and every
 * request read from it has been answered (a client may write its requests
 * and close stdin at once). A request that cannot be sent is answered with a
 * JSON-RPC error saying why, so the client is never left waiting.
 *
 * @param options Where to, with which token, how to find the owner again, and where to tell problems.
 */
export async function bridgeStdio(options: BridgeOptions): Promise<void> {
  const stdio = new StdioServerTransport();
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => finish = resolve);
  /** The client's own `initialize` and `initialized`, sent again to open a new session. */
  let initialize: JSONRPCMessage | undefined;
  let initialized: JSONRPCMessage | undefined;
  let replays = 0;
  let link: Link;
  let relinking: Promise<Link> | null = null;
  /** The client sent an `initialize`. */
  let initializeSeen = false;
  /**
   * Requests read and not yet answered: a client that writes its requests
   * and closes stdin is still answered, so the bridge ends only once these
   * are (or the owner is gone).
   */
  const unanswered = new Set<unknown>();
  let stdinEnded = false;
  const limits = options.limits ?? BRIDGE_LIMITS;
  const queue = new BridgeQueue<JSONRPCMessage>({
    limits,
    send: (message) => forward(message),
    // Past the bound the bridge reads no further: the client's writes wait in the pipe.
    pause: () => process.stdin.pause(),
    resume: () => process.stdin.resume(),
    observe: options.observe,
  });
  const answeredRequest = (id: unknown) => {
    unanswered.delete(id);
    queue.answered(id);
    if (stdinEnded && unanswered.size === 0) finish();
  };
  /** Whether the bridge has said it refuses what the client sends past the hold's bound. */
  let saidFull = false;

  const open = async (target: BridgeTarget, replay: boolean): Promise<Link> => {
    const http = new StreamableHTTPClientTransport(target.url, {
      requestInit: { headers: { authorization: `Bearer ${target.token}` } },
      fetch: target.socket?.fetch,
    });
    const opened: Link = { http, name: target.name, socket: target.socket };
    // The answer to a replayed `initialize` is the bridge's, not the client's.
    const replayId = `sync-mcp-bridge-${++replays}`;
    let answered: (error?: string) => void = () => {};
    const answer = new Promise<string | undefined>((resolve) => answered = resolve);
    http.onmessage = (message: JSONRPCMessage) => {
      if (replay && "id" in message && message.id === replayId && !("method" in message)) {
        answered("error" in message ? message.error.message : undefined);
        return;
      }
      stdio.send(message).catch(() => finish());
      if ("id" in message && !("method" in message)) answeredRequest(message.id);
    };
    // The SDK reports a broken stream, and every try to reconnect it, here:
    // the bridge says once that it lost the owner, when it opens a new session.
    http.onerror = (error: Error) => {
      if (link !== opened || goneNoise(error)) return;
      options.log(`sync mcp: ${describeError(error).message}`);
    };
    // Only the session in use ends the bridge by closing; one replaced is closed by the bridge.
    http.onclose = () => {
      if (link === opened) finish();
    };
    try {
      await http.start();
    } catch (error) {
      await closeLink(opened);
      throw error;
    }
    if (!replay || !initialize) return opened;
    try {
      await http.send({ ...initialize, id: replayId } as JSONRPCMessage);
      const timeoutMs = options.initializeTimeoutMs ?? 10_000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const refused = await Promise.race([
        answer,
        new Promise<string>((resolve) => {
          timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
      if (refused !== undefined) {
        throw new Error(`the new session's initialize was refused: ${refused}`);
      }
      if (initialized) await http.send(initialized);
      return opened;
    } catch (error) {
      // A session that could not be opened is not left half open.
      await closeLink(opened);
      throw error;
    }
  };

  /**
   * A new session in place of `lost`, once, however many sends found it lost;
   * `why` is how the first found it: nothing answered, or the serve no longer
   * had the session.
   */
  const relink = (lost: Link, why: unknown): Promise<Link> => {
    if (link !== lost) return Promise.resolve(link);
    relinking ??= (async () => {
      try {
        const target = await options.reconnect!();
        const fresh = await open(target, true);
        link = fresh;
        await closeLink(lost);
        // One line, in place of what the SDK's transport reported as the stream broke.
        options.log(
          `sync mcp: ${
            why instanceof TypeError
              ? `lost ${lost.name}`
              : `${lost.name} no longer had the session`
          }; reconnected in a new session with ${fresh.name}`,
        );
        // What the new session offers may differ: the client is told to list the tools again.
        await stdio.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
          .catch(() => {});
        return fresh;
      } finally {
        relinking = null;
      }
    })();
    return relinking;
  };

  const refuse = async (message: JSONRPCMessage, error: unknown) => {
    // The owner's own refusal (a project it does not open, a bad request) is
    // passed on as it said it; a failure to reach it is the bridge's to say.
    const refused = refusalOf(error);
    const why = refused?.message ?? describeError(error).message;
    options.log(
      refused
        ? `sync mcp: ${link.name} refused a message: ${why}`
        : `sync mcp: ${link.name} did not take a message: ${why}`,
    );
    if ("id" in message && "method" in message) {
      answeredRequest(message.id);
      await stdio.send({
        jsonrpc: "2.0",
        id: message.id,
        error: refused ?? {
          code: -32603,
          message: `Sync did not answer through ${link.name} (${why}); is deno task ` +
            `serve still running?`,
        },
      }).catch(() => {});
    }
  };

  /**
   * Sends a message over `used`; once more, a moment later, when the owner's
   * socket turned the connection away as busy: the owner is there and never
   * saw the message. A second refusal is told like any failure.
   */
  const send = async (used: Link, message: JSONRPCMessage) => {
    try {
      await used.http.send(message);
    } catch (error) {
      if (!socketBusy(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, limits.busyRetryMs));
      await used.http.send(message);
    }
  };

  const forward = async (message: JSONRPCMessage) => {
    const used = link;
    let lost: unknown;
    try {
      await send(used, message);
      return;
    } catch (error) {
      const method = methodOf(message);
      // The client's own initialize is its own to retry; anything else goes on in a new session.
      if (!options.reconnect || !sessionLost(error) || method === "initialize" || !initialize) {
        return await refuse(message, error);
      }
      lost = error;
    }
    try {
      const fresh = await relink(used, lost);
      // The new session was opened with the client's initialized already.
      if (methodOf(message) === "notifications/initialized") return;
      await send(fresh, message);
    } catch (error) {
      await refuse(message, error);
    }
  };

  /** Answers a request past the hold's bound at once; drops a notification. */
  const refuseHeld = (message: JSONRPCMessage) => {
    if (!saidFull) {
      saidFull = true;
      options.log(
        `sync mcp: the client sent more than ${limits.maxHeld} messages before its ` +
          `initialize; the bridge refuses the requests past them and drops the notifications`,
      );
    }
    if (!("id" in message) || methodOf(message) === undefined) return;
    answeredRequest(message.id);
    stdio.send({
      jsonrpc: "2.0",
      id: message.id,
      error: {
        code: -32000,
        message:
          `The bridge holds at most ${limits.maxHeld} requests (${
            limits.maxHeldBytes / 1024 / 1024
          } MiB) written before initialize until initialize is answered, and this one came ` +
          `past them; send initialize first, then send this request again`,
      },
    }).catch(() => finish());
  };

  stdio.onmessage = (message: JSONRPCMessage) => {
    const method = methodOf(message);
    if (method === "ping" && "id" in message && !queue.opened) {
      stdio.send({ jsonrpc: "2.0", id: message.id as string | number, result: {} }).catch(() =>
        finish()
      );
      return;
    }
    const first = method === "initialize" && "id" in message && !initializeSeen;
    const bytes = messageBytes(message);
    // The client's first initialize and initialized are what the held wait for: never refused.
    const needed = first || (method === "notifications/initialized" && !initialized);
    if (!initializeSeen && !needed && !queue.holds(bytes)) {
      refuseHeld(message);
      return;
    }
    if ("id" in message && method !== undefined) unanswered.add(message.id);
    if (method === "initialize") initialize = message;
    else if (method === "notifications/initialized") initialized = message;
    if (first) {
      // The first goes at once; what came before it waits for its answer.
      initializeSeen = true;
      queue.sendFirst(message);
      return;
    }
    queue.push(message, bytes);
  };
  // The SDK's stdio server reads on past a line it cannot read and answers
  // nothing (its own servers do the same): the bridge says so on stderr.
  stdio.onerror = (error: Error) => options.log(`sync mcp: ${unreadLine(error)}`);
  stdio.onclose = () => finish();
  process.stdin.once("end", () => {
    stdinEnded = true;
    // Requests held for an `initialize` that will never come are refused, so the bridge can end.
    if (!initializeSeen) {
      for (const message of queue.takeHeld()) {
        if (!("id" in message) || methodOf(message) === undefined) continue;
        answeredRequest(message.id);
        stdio.send({
          jsonrpc: "2.0",
          id: message.id,
          error: {
            code: -32600,
            message: "The client closed stdin without sending initialize; a session begins " +
              "with initialize, and this request was held for it",
          },
        }).catch(() => {});
      }
    }
    if (unanswered.size === 0) finish();
  });
  link = await open(options, false);
  await stdio.start();
  await finished;
  try {
    await link.http.terminateSession();
  } catch { /* the owner is gone, or ended the session itself */ }
  await closeLink(link);
  await stdio.close().catch(() => {});
}
