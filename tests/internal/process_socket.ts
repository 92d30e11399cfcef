/**
 * Test helper: a real WebSocket to `GET /api/processes`, as the app's page
 * opens it (its Origin and its cookie), that keeps every message the server
 * sends and can wait for one.
 *
 * @module
 */
import type { ProcessMessage } from "../../runtime/web/api/process_types.ts";

/** Where the app is and its credentials. */
export interface AppAddress {
  /** The app's port on 127.0.0.1. */
  port: number;
  /** The installation's token. */
  token: string;
}

/** Which screen a socket is for. */
export interface SocketScreen {
  project: string;
  packageId: string;
  screen: string;
}

/** The path and query of the processes socket of a screen. */
export function processesPath(screen: SocketScreen): string {
  const query = new URLSearchParams({
    project: screen.project,
    id: screen.packageId,
    screen: screen.screen,
  });
  return `/api/processes?${query}`;
}

/** The headers the app's page sends: its Origin and the token's cookie. */
export function pageHeaders(app: AppAddress): Record<string, string> {
  return {
    origin: `http://127.0.0.1:${app.port}`,
    cookie: `sync_token_${app.port}=${app.token}`,
  };
}

/** Opens a WebSocket at `path` of the app, with the page's headers (or those given). */
export function openSocket(
  app: AppAddress,
  path: string,
  headers: Record<string, string> = pageHeaders(app),
): WebSocket {
  return new WebSocket(`ws://127.0.0.1:${app.port}${path}`, { headers });
}

/** A socket to the processes of one screen, and what it was sent. */
export class ProcessSocket {
  readonly socket: WebSocket;
  readonly messages: ProcessMessage[] = [];
  /** The close event, once closed. */
  closeEvent: CloseEvent | undefined;
  #nextId = 1;
  #opened: Promise<void>;
  #closed: Promise<void>;

  constructor(app: AppAddress, screen: SocketScreen) {
    this.socket = openSocket(app, processesPath(screen));
    this.#opened = new Promise((resolve, reject) => {
      this.socket.addEventListener("open", () => resolve());
      this.socket.addEventListener("error", () => reject(new Error("the socket did not open")));
    });
    // Told to whoever waits for it; a socket nobody used may fail unheard.
    this.#opened.catch(() => {});
    this.#closed = new Promise((resolve) => {
      this.socket.addEventListener("close", (event) => {
        this.closeEvent = event;
        resolve();
      });
    });
    this.socket.addEventListener("message", (event) => {
      this.messages.push(JSON.parse(event.data));
    });
  }

  /** Waits until the socket is open. */
  opened(): Promise<void> {
    return this.#opened;
  }

  /** Resolves when the socket has closed. */
  closed(): Promise<void> {
    return this.#closed;
  }

  /** Sends raw text or bytes. */
  async sendRaw(data: string | Uint8Array): Promise<void> {
    await this.#opened;
    this.socket.send(data);
  }

  /** Sends a request with a new id and answers that id. */
  async send(request: Record<string, unknown>): Promise<number> {
    await this.#opened;
    const id = this.#nextId++;
    this.socket.send(JSON.stringify({ ...request, id }));
    return id;
  }

  /** Sends a request and waits for its answer (`spawned`, `done` or `error`). */
  async request(request: Record<string, unknown>): Promise<ProcessMessage> {
    const id = await this.send(request);
    return await this.waitFor((m) => "id" in m && m.id === id);
  }

  /** Starts a declared program; answers its pid, or fails with the refusal. */
  async spawn(request: Record<string, unknown>): Promise<number> {
    const answer = await this.request({ type: "spawn", ...request });
    if (answer.type !== "spawned") throw new Error(JSON.stringify(answer));
    return answer.pid;
  }

  /** Waits for a message matching `matches`; fails after `ms`. */
  async waitFor(
    matches: (message: ProcessMessage) => boolean,
    ms = 30_000,
  ): Promise<ProcessMessage> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const found = this.messages.find(matches);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no such message in ${JSON.stringify(this.messages)}`);
  }

  /** Waits for the `exited` of `pid`. */
  async exited(pid: number): Promise<{ code: number; signal: string | null }> {
    const message = await this.waitFor((m) => m.type === "exited" && m.pid === pid);
    if (message.type !== "exited") throw new Error("unreachable");
    return { code: message.code, signal: message.signal };
  }

  /** Everything `pid` wrote to stdout (or stderr) so far, joined. */
  output(pid: number, stream: "stdout" | "stderr" = "stdout"): string {
    return this.messages
      .map((m) => m.type === stream && m.pid === pid ? m.text : "")
      .join("");
  }

  /** Waits until `pid`'s output includes `text`. */
  async waitForOutput(
    pid: number,
    text: string,
    stream: "stdout" | "stderr" = "stdout",
  ): Promise<void> {
    const until = Date.now() + 30_000;
    while (!this.output(pid, stream).includes(text)) {
      if (Date.now() > until) {
        throw new Error(
          `pid ${pid} did not write ${JSON.stringify(text)}: ${JSON.stringify(this.messages)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Closes the socket from this side and waits until it is closed. */
  async close(): Promise<void> {
    try {
      this.socket.close();
    } catch { /* closed already */ }
    await this.#closed;
  }
}
