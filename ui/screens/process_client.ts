/**
 * The app's side of `GET /api/processes`: one WebSocket per screen instance,
 * opened when the screen first starts a program, through which the screen
 * starts the programs its package declares under `host.processes`, writes
 * to them, stops them and hears their output. `ctx.host.spawn` is this.
 *
 * What the screen hands in is contained: an `onStdout` or `onStderr` that
 * throws loses nothing that comes after, and `exited` still settles.
 *
 * @module
 */
import type { ProcessMessage, ProcessRequest } from "../../runtime/web/api/process_types.ts";

/** The socket's path on the app's own origin. */
const PROCESSES_PATH = "/api/processes";
/** The close code with which the server says a newer socket took this screen's place. */
const REPLACED_CLOSE_CODE = 4000;

/** Options for a {@linkcode ProcessClient}. */
export interface ProcessClientOptions {
  /** The project's absolute folder. */
  project: string;
  /** The package whose screen it is. */
  packageId: string;
  /** The screen instance: new each time the screen loads, so a reload never reaches what it started before. */
  screen: string;
  /**
   * Opens the socket at a path of the app's origin (with its query); on the
   * page, `new WebSocket` on the page's own origin, which sends its cookie.
   */
  connect?: (path: string) => WebSocket;
  /** Told what an `onStdout` or `onStderr` threw; `console.error` unless given. */
  onCallbackError?: (error: unknown) => void;
}

/** What a program is started with, besides the arguments the manifest declares. */
export interface ProcessSpawnOptions {
  /** Arguments appended to the declared ones. */
  args?: string[];
  /**
   * The folder it starts in: `~/` is the person's home, a relative path is
   * taken from the project folder, which is also where it starts when none is
   * given. Made when missing.
   */
  cwd?: string;
  /**
   * Variables to set (a string) or remove (`null`); `SYNC_*`, `PATH`, `LD_*`, `DYLD_*` and
   * `GCONV_PATH` are refused.
   */
  env?: Record<string, string | null>;
}

/** Where a program's output goes, as UTF-8 text with no character split. */
export interface ProcessOutput {
  /** Each piece of its stdout. */
  onStdout?: (text: string) => void;
  /** Each piece of its stderr. */
  onStderr?: (text: string) => void;
}

/** How a program ended. */
export interface ProcessExitInfo {
  /**
   * Its exit code (128 + the signal's number when a signal ended it); null
   * when the channel to Sync closed before the exit was heard, in which case
   * Sync stopped the program.
   */
  code: number | null;
  /** The signal that ended it, such as `SIGTERM`; null when it exited by itself or was not heard. */
  signal: string | null;
}

/** A program a screen started. */
export interface ProcessHandle {
  /** Its pid, which is also its process group's id. */
  readonly pid: number;
  /** Writes text to its stdin; resolves once written. */
  write(text: string): Promise<void>;
  /** Closes its stdin; it reads the end of its input. */
  end(): Promise<void>;
  /** Stops it and its group: SIGTERM, then SIGKILL after 3 s; `exited` says when it has gone. */
  kill(): Promise<void>;
  /** Settles once it has exited and nothing of its group is left; never rejects. */
  readonly exited: Promise<ProcessExitInfo>;
}

/** A request refused or failed, with the server's name for it and its words. */
export class ProcessError extends Error {
  /**
   * @param message What went wrong, why, and what to do next.
   * @param kind The server's name for the error, such as `ApprovalRequiredError`.
   */
  constructor(message: string, readonly kind: string = "ProcessError") {
    super(message);
    this.name = "ProcessError";
  }
}

/** A request waiting for its answer. */
interface Pending {
  /**
   * For a start: called as its answer is read, before any other message, so
   * that no output that follows it is missed.
   */
  started?: (pid: number) => void;
  resolve: (message: ProcessMessage) => void;
  reject: (error: ProcessError) => void;
}

/** A started program, as the client follows it. */
interface Running {
  output: ProcessOutput;
  settle: (exit: ProcessExitInfo) => void;
}

/**
 * The programs one screen instance starts. The socket opens at the first
 * {@linkcode ProcessClient.spawn} and closes with
 * {@linkcode ProcessClient.close}, which stops every program it started.
 */
export class ProcessClient {
  #options: ProcessClientOptions;
  #socket: WebSocket | undefined;
  #opened: Promise<WebSocket> | undefined;
  #pending = new Map<number, Pending>();
  #running = new Map<number, Running>();
  #nextId = 1;
  #closed = false;
  /** Why no socket may be opened again, once one was replaced. */
  #ended: string | undefined;

  /**
   * A client with no socket yet.
   *
   * @param options The screen it is for, and how the socket is opened.
   */
  constructor(options: ProcessClientOptions) {
    this.#options = options;
  }

  /**
   * Starts the program `id` the package declares under `host.processes`.
   *
   * @param id The program's id in the manifest, such as `lsp`.
   * @param options Arguments appended to the declared ones, folder, environment.
   * @param output Where its stdout and stderr go.
   * @returns The running program.
   * @throws {ProcessError} when the client is closed, the socket cannot be
   *   opened, or Sync refuses the start (with its reason).
   */
  async spawn(
    id: string,
    options: ProcessSpawnOptions = {},
    output: ProcessOutput = {},
  ): Promise<ProcessHandle> {
    if (this.#closed) {
      throw new ProcessError(`Cannot start ${id}: the screen's process client is closed`);
    }
    const request: ProcessRequest = { type: "spawn", id: 0, process: id };
    if (options.args !== undefined) request.args = [...options.args];
    if (options.cwd !== undefined) request.cwd = options.cwd;
    if (options.env !== undefined) request.env = { ...options.env };
    let settle!: (exit: ProcessExitInfo) => void;
    const exited = new Promise<ProcessExitInfo>((resolve) => settle = resolve);
    let done = false;
    const callbacks = { ...output };
    const answer = await this.#request(request, (pid) => {
      this.#running.set(pid, {
        output: callbacks,
        settle: (exit) => {
          done = true;
          this.#running.delete(pid);
          settle(exit);
        },
      });
    });
    if (answer.type !== "spawned") throw new ProcessError(`Cannot start ${id}: no pid came back`);
    const pid = answer.pid;
    const act = async (type: "write" | "end" | "kill", text?: string) => {
      if (done) throw new ProcessError(`Cannot ${type} pid ${pid}: it has exited`);
      const message: ProcessRequest = type === "write"
        ? { type, id: 0, pid, text: text! }
        : { type, id: 0, pid };
      await this.#request(message);
    };
    return {
      pid,
      write: (text: string) => act("write", String(text)),
      end: () => act("end"),
      kill: () => act("kill"),
      exited,
    };
  }

  /**
   * Closes the socket: Sync stops every program this screen started, each
   * one's `exited` settles, and later starts are refused.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#socket?.close(1000, "The screen closed");
    } catch { /* closing already */ }
    this.#lost("the screen's process client was closed");
  }

  async #request(
    message: ProcessRequest,
    started?: (pid: number) => void,
  ): Promise<ProcessMessage> {
    const socket = await this.#open();
    const id = this.#nextId++;
    return await new Promise<ProcessMessage>((resolve, reject) => {
      this.#pending.set(id, { started, resolve, reject });
      try {
        socket.send(JSON.stringify({ ...message, id }));
      } catch {
        this.#pending.delete(id);
        reject(new ProcessError("The channel to Sync closed; nothing was sent"));
      }
    });
  }

  #open(): Promise<WebSocket> {
    if (this.#closed) {
      return Promise.reject(new ProcessError("The screen's process client is closed"));
    }
    if (this.#ended) return Promise.reject(new ProcessError(this.#ended));
    if (this.#opened) return this.#opened;
    const query = new URLSearchParams({
      project: this.#options.project,
      id: this.#options.packageId,
      screen: this.#options.screen,
    });
    const path = `${PROCESSES_PATH}?${query}`;
    let socket: WebSocket;
    try {
      socket = (this.#options.connect ?? openOnPage)(path);
    } catch (error) {
      return Promise.reject(
        new ProcessError(`Cannot open the channel to Sync: ${messageOf(error)}`),
      );
    }
    this.#socket = socket;
    const opened = new Promise<WebSocket>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(socket));
      socket.addEventListener("close", (event) => {
        reject(
          new ProcessError(
            `Cannot open the channel to Sync (closed with code ${event.code}` +
              `${event.reason ? `: ${event.reason}` : ""}); reload the page if Sync restarted`,
          ),
        );
        this.#socketClosed(socket, event);
      });
    });
    socket.addEventListener("message", (event) => this.#receive(event.data));
    this.#opened = opened;
    return opened;
  }

  #socketClosed(socket: WebSocket, event: CloseEvent): void {
    if (this.#socket !== socket) return;
    this.#socket = undefined;
    this.#opened = undefined;
    const why = event.code === REPLACED_CLOSE_CODE
      ? "a newer channel opened for this screen, so Sync stopped what this one started"
      : `the channel to Sync closed (code ${event.code}${
        event.reason ? `: ${event.reason}` : ""
      }); Sync stopped what it started`;
    if (event.code === REPLACED_CLOSE_CODE) this.#ended = `Cannot start a program: ${why}`;
    this.#lost(why);
  }

  /** Every request fails and every program is heard of no more: the channel is gone. */
  #lost(why: string): void {
    for (const pending of this.#pending.values()) pending.reject(new ProcessError(why));
    this.#pending.clear();
    for (const running of [...this.#running.values()]) running.settle({ code: null, signal: null });
  }

  #receive(data: unknown): void {
    let message: ProcessMessage;
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    switch (message.type) {
      case "spawned":
      case "done":
      case "error": {
        if (typeof message.id !== "number") return;
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        this.#pending.delete(message.id);
        if (message.type === "error") {
          pending.reject(new ProcessError(message.message, message.name));
          return;
        }
        if (message.type === "spawned") pending.started?.(message.pid);
        pending.resolve(message);
        return;
      }
      case "stdout":
      case "stderr": {
        const running = this.#running.get(message.pid);
        const listener = message.type === "stdout"
          ? running?.output.onStdout
          : running?.output.onStderr;
        try {
          listener?.(message.text);
        } catch (error) {
          // The screen's code: what it throws must not stop what comes after.
          try {
            (this.#options.onCallbackError ?? console.error)(error);
          } catch { /* nowhere left to tell */ }
        }
        return;
      }
      case "exited":
        this.#running.get(message.pid)?.settle({ code: message.code, signal: message.signal });
        return;
    }
  }
}

/** Opens the socket on the page's own origin (`ws:` for `http:`), which sends the page's cookie. */
function openOnPage(path: string): WebSocket {
  const url = new URL(path, globalThis.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(url);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
