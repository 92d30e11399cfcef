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
 * (`_bridge_queue.ts`); answers come back as the owner gives them. A request
 * whose answer the owner began and never finished (it went away mid-call) is
 * answered with an error saying so, never sent again: it may have run.
 *
 * The bridge sends the token and the project's path only where its caller
 * says: `sync mcp` gives it the owner's socket in the installation folder.
 *
 * An MCP client starts the bridge each time it connects, so it starts as
 * fast as Deno does: it loads no npm package. Its two transports, stdio
 * lines (`_stdio_lines.ts`) and the client's side of Streamable HTTP
 * (`_streamable_http.ts`), are written here, a few hundred lines together;
 * the MCP SDK's, with the schemas they check messages against, took 0.19 s
 * and 60 MB to load, several times Deno's own start. They speak the same
 * wire as the SDK's.
 *
 * @module
 */
import { describeError } from "../internal/describe_error.ts";
import { OwnerCutOffError, type OwnerSocketClient, OwnerUnreachedError } from "../projects/mod.ts";
import { BridgeQueue, messageBytes } from "./_bridge_queue.ts";
import {
  isAnswer,
  isRequest,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  methodOf,
  NotJsonRpcError,
} from "./_json_rpc.ts";
import { MAX_LINE_BYTES, StdioLines } from "./_stdio_lines.ts";
import { HttpRefusalError, StreamableHttpClient } from "./_streamable_http.ts";
import { BRIDGE_LIMITS, type BridgeLimits } from "./bridge_limits.ts";

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
  /** Where the client's lines are read (the process's stdin by default). */
  input?: ReadableStream<Uint8Array>;
  /** Where the bridge's lines are written (the process's stdout by default). */
  output?: WritableStream<Uint8Array>;
}

/** One session at the owner, and the transport it goes over. */
interface Link {
  http: StreamableHttpClient;
  /** What the owner is called, for what the bridge says. */
  name: string;
  /** The connection the transport goes over, when it is not the global `fetch`'s. */
  socket?: OwnerSocketClient;
}

/** Closes a session's transport and the connection under it. */
function closeLink(link: Link): void {
  link.http.close();
  link.socket?.close();
}

/**
 * True when a send failed because the owner is gone (nothing listens: the
 * connection was refused, so nothing was sent) or no longer has the session
 * (it answers 404): what a new session mends, sending the message again. A
 * connection that broke after the message went out is not: the owner may
 * have run it, and it is never sent twice.
 */
function sessionLost(error: unknown): boolean {
  if (error instanceof HttpRefusalError && error.status === 404) return true;
  if (error instanceof OwnerUnreachedError) return true;
  if (error instanceof OwnerCutOffError || !(error instanceof TypeError)) return false;
  // `fetch`'s own (an owner reached over TCP): it says a failure to connect so.
  return /\(Connect\)/.test(error.message);
}

/**
 * True when a send failed after the message reached the owner, which may
 * have acted on it: anything but a failure to reach it and a refusal.
 */
function reachedOwner(error: unknown): boolean {
  if (sessionLost(error)) return false;
  return !(error instanceof HttpRefusalError && error.status < 500);
}

/**
 * The JSON-RPC error the owner answered a message with, when its refusal
 * (a 4xx, with the error as its body) carried one.
 */
function refusalOf(error: unknown): { code: number; message: string } | null {
  if (!(error instanceof HttpRefusalError) || error.status < 400 || error.status > 499) {
    return null;
  }
  try {
    const { error: refused } = JSON.parse(error.body);
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

/** The message of a JSON-RPC error answer. */
function errorOf(message: JsonRpcMessage): string {
  return (message as { error: { message: string } }).error.message;
}

/** What the bridge says of something the owner sent that is no message (it reads on). */
function unreadAnswer(error: Error): string {
  return error instanceof SyntaxError
    ? `something that is not JSON (${error.message}); it was skipped`
    : "JSON that is not a JSON-RPC message; it was skipped";
}

/** What the bridge says of a line on stdin it could not read (it reads on). */
function unreadLine(error: unknown): string {
  if (error instanceof SyntaxError) {
    return `a line on stdin is not JSON (${error.message}); it was not answered`;
  }
  if (error instanceof NotJsonRpcError) {
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
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => finish = resolve);
  const stdio = new StdioLines({
    onmessage: (message) => read(message),
    // A line it cannot read is skipped, and reading goes on (as MCP's own
    // servers do): the bridge says so on stderr.
    onerror: (error) => options.log(`sync mcp: ${unreadLine(error)}`),
    onend: () => stdinEnd("The client closed stdin without sending initialize"),
    // Reading stopped at a line too long: what was read before it is still answered.
    onclose: () =>
      stdinEnd(
        `The bridge stopped reading stdin at a line longer than ${
          MAX_LINE_BYTES / 1024 / 1024
        } MiB before the client sent initialize`,
      ),
    input: options.input,
    output: options.output,
  });
  /** The client's own `initialize` and `initialized`, sent again to open a new session. */
  let initialize: JsonRpcMessage | undefined;
  let initialized: JsonRpcMessage | undefined;
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
  const queue = new BridgeQueue<JsonRpcMessage>({
    limits,
    send: (message) => forward(message),
    // Past the bound the bridge reads no further: the client's writes wait in the pipe.
    pause: () => stdio.pause(),
    resume: () => stdio.resume(),
    observe: options.observe,
  });
  /** Requests the client called off (`notifications/cancelled`) and not yet answered. */
  const cancelled = new Set<unknown>();
  const answeredRequest = (id: unknown) => {
    unanswered.delete(id);
    cancelled.delete(id);
    queue.answered(id);
    if (stdinEnded && unanswered.size === 0) finish();
  };
  /** Whether the bridge has said it refuses what the client sends past the hold's bound. */
  let saidFull = false;

  const open = async (target: BridgeTarget, replay: boolean): Promise<Link> => {
    // The answer to a replayed `initialize` is the bridge's, not the client's.
    const replayId = `sync-mcp-bridge-${++replays}`;
    let answered: (error?: string) => void = () => {};
    const answer = new Promise<string | undefined>((resolve) => answered = resolve);
    const http: StreamableHttpClient = new StreamableHttpClient(target.url, {
      token: target.token,
      send: target.socket?.request,
      onmessage: (message) => {
        if (replay && isAnswer(message) && message.id === replayId) {
          answered(Object.hasOwn(message, "error") ? errorOf(message) : undefined);
          return;
        }
        if (isAnswer(message) && message.id !== undefined && !unanswered.has(message.id)) {
          // An answer to nothing the client asked, or asked and was answered already.
          options.log(
            `sync mcp: ${target.name} answered a request the client did not send or was ` +
              `answered already (id ${JSON.stringify(message.id).slice(0, 100)}); it was dropped`,
          );
          return;
        }
        stdio.send(message).catch(() => finish());
        if (isAnswer(message)) answeredRequest(message.id);
      },
      // What the owner sent that is no message: nobody's to answer, the bridge says it.
      onerror: (error) => {
        if (link === opened) options.log(`sync mcp: ${link.name} sent ${unreadAnswer(error)}`);
      },
      onunanswered: (id, why) => cutOff(id, target.name, why),
      onstreamstopped: (why) => options.log(`sync mcp: ${target.name}: ${why}`),
    });
    const opened: Link = { http, name: target.name, socket: target.socket };
    if (!replay || !initialize) return opened;
    try {
      await http.send({ ...initialize, id: replayId } as JsonRpcMessage);
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
      closeLink(opened);
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
        closeLink(lost);
        // One line: the stream that broke with the owner went unreported.
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

  /**
   * Answers a request whose answer the owner began and never finished (it
   * went away mid-call, or its session was replaced): the client is not left
   * waiting. It is not sent again, since it may have run.
   */
  const cutOff = (id: JsonRpcId, name: string, why?: string) => {
    if (!unanswered.has(id)) return;
    // The client called it off and waits for no answer; its turn is over all the same.
    if (cancelled.has(id)) return answeredRequest(id);
    options.log(
      why
        ? `sync mcp: ${name} sent ${why} in answer to a request; the bridge dropped it and ` +
          `answered the request with an error`
        : `sync mcp: ${name} did not finish answering a request; it was answered with an error`,
    );
    answeredRequest(id);
    stdio.send({
      jsonrpc: "2.0",
      id,
      error: {
        code: -32603,
        message: why
          ? `Sync's answer through ${name} was ${why}, more than the bridge takes, so it was ` +
            `dropped; the request may have run`
          : `Sync's answer through ${name} was cut off before it came, so whether the ` +
            `request ran is not known here; is deno task serve still running?`,
      },
    }).catch(() => finish());
  };

  const refuse = async (message: JsonRpcMessage, error: unknown) => {
    // The owner's own refusal (a project it does not open, a bad request) is
    // passed on as it said it; a failure to reach it is the bridge's to say.
    const refused = refusalOf(error);
    const why = refused?.message ?? describeError(error).message;
    options.log(
      refused
        ? `sync mcp: ${link.name} refused a message: ${why}`
        : `sync mcp: ${link.name} did not take a message: ${why}`,
    );
    if (isRequest(message)) {
      answeredRequest(message.id);
      await stdio.send({
        jsonrpc: "2.0",
        id: message.id,
        error: refused ?? {
          code: -32603,
          message: reachedOwner(error)
            // It reached the owner, which may have acted on it.
            ? `The answer from ${link.name} was cut off or could not be read (${why}); what ` +
              `it did is unknown: look (sync receipts, sync records) before you send it again`
            : `Sync did not answer through ${link.name} (${why}); is deno task ` +
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
  const send = async (used: Link, message: JsonRpcMessage) => {
    try {
      await used.http.send(message);
    } catch (error) {
      if (!socketBusy(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, limits.busyRetryMs));
      await used.http.send(message);
    }
  };

  const forward = async (message: JsonRpcMessage) => {
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
  const refuseHeld = (message: JsonRpcMessage) => {
    if (!saidFull) {
      saidFull = true;
      options.log(
        `sync mcp: the client sent more than ${limits.maxHeld} messages before its ` +
          `initialize; the bridge refuses the requests past them and drops the notifications`,
      );
    }
    if (!isRequest(message)) return;
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

  const read = (message: JsonRpcMessage) => {
    const method = methodOf(message);
    if (method === "notifications/cancelled") {
      const requestId = (message as JsonRpcNotification).params?.requestId;
      if (unanswered.has(requestId)) cancelled.add(requestId);
    }
    if (method === "ping" && isRequest(message) && !queue.opened) {
      stdio.send({ jsonrpc: "2.0", id: message.id, result: {} }).catch(() => finish());
      return;
    }
    const first = method === "initialize" && isRequest(message) && !initializeSeen;
    const bytes = messageBytes(message);
    // The client's first initialize and initialized are what the held wait for: never refused.
    const needed = first || (method === "notifications/initialized" && !initialized);
    if (!initializeSeen && !needed && !queue.holds(bytes)) {
      refuseHeld(message);
      return;
    }
    if (isRequest(message)) unanswered.add(message.id);
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
  /**
   * Stdin is read no more: what was read is answered, then the bridge ends.
   * `said` is why, as a request held for an `initialize` is told.
   */
  const stdinEnd = (said: string) => {
    stdinEnded = true;
    // Requests held for an `initialize` that will never come are refused, so the bridge can end.
    if (!initializeSeen) {
      for (const message of queue.takeHeld()) {
        if (!isRequest(message)) continue;
        answeredRequest(message.id);
        stdio.send({
          jsonrpc: "2.0",
          id: message.id,
          error: {
            code: -32600,
            message: `${said}; a session begins with initialize, and this request was ` +
              "held for it",
          },
        }).catch(() => {});
      }
    }
    if (unanswered.size === 0) finish();
  };
  link = await open(options, false);
  stdio.start();
  await finished;
  try {
    await link.http.terminateSession();
  } catch { /* the owner is gone, or ended the session itself */ }
  closeLink(link);
  await stdio.close();
}
