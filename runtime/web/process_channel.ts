/**
 * One screen's WebSocket to the programs it starts: it reads the page's
 * requests, starts declared programs on the supervisor, streams their output
 * back, and stops them all when the socket closes.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { SCREEN_PROCESS_LIMITS } from "../limits.ts";
import type { SupervisedProcess, Supervisor } from "../supervisor/mod.ts";
import type { ProcessMessage, ProcessRequest, SpawnRequest } from "./api/process_types.ts";
import { readDeclaredProcess } from "./declared_process.ts";
import { parseProcessRequest, ProcessRequestError } from "./process_request.ts";

/** Which screen a socket is for. */
export interface ScreenAddress {
  /** The project's resolved folder. */
  project: string;
  /** The package whose screen it is. */
  packageId: string;
  /** The screen instance: a new one each time the screen loads. */
  screen: string;
}

/** Options for a {@linkcode ProcessChannel}. */
export interface ProcessChannelOptions {
  /** Which screen the socket is for. */
  address: ScreenAddress;
  /** Starts and stops the programs. */
  supervisor: Supervisor;
  /** The installation's KV, where approvals are read at every start. */
  kv: Deno.Kv;
  /**
   * A mark of the package's standing, changed when it is removed from the
   * project or updated: a start during which it changed is stopped.
   */
  standing: () => string;
  /** Called once, when the socket has closed. */
  onClose?: (channel: ProcessChannel) => void;
}

/** How long a program's stdout is still read after its group has gone, in ms. */
const STDOUT_AFTER_GONE_MS = 1_000;
/** How often a page that is behind is looked at again, in ms. */
const BACKLOG_POLL_MS = 20;

/**
 * The programs one screen instance started, and its socket. Only the
 * programs started through this socket can be written to or stopped through
 * it; when it closes, every one of them is stopped, and a start still under
 * way is stopped as soon as it has begun.
 */
export class ProcessChannel {
  /** Which screen the socket is for. */
  readonly address: ScreenAddress;
  /** The supervisor's owner of this screen's programs. */
  readonly owner: string;
  #socket: WebSocket;
  #options: ProcessChannelOptions;
  #processes = new Map<number, SupervisedProcess>();
  #closed = false;

  /**
   * Takes charge of an upgraded socket.
   *
   * @param socket The socket, as `Deno.upgradeWebSocket` gave it.
   * @param options The screen, the supervisor, the KV and the package's standing.
   */
  constructor(socket: WebSocket, options: ProcessChannelOptions) {
    this.#socket = socket;
    this.#options = options;
    this.address = options.address;
    const { project, packageId, screen } = options.address;
    this.owner = `${packageId} screen ${screen} in ${project}`;
    socket.addEventListener("message", (event) => this.#receive(event.data));
    socket.addEventListener("close", () => this.#ended());
    socket.addEventListener("error", () => this.#ended());
  }

  /** True once the socket has closed or was closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The pids of the programs this screen started that have not exited yet. */
  get pids(): number[] {
    return [...this.#processes.keys()];
  }

  /**
   * Stops every program this screen started; the socket stays open and
   * each stopped program's `exited` is sent.
   */
  stopProcesses(): void {
    for (const process of this.#processes.values()) process.stop().catch(() => {});
  }

  /**
   * Closes the socket and stops every program started through it.
   *
   * @param code The WebSocket close code.
   * @param reason Why, as the page is told.
   */
  close(code: number, reason: string): void {
    try {
      this.#socket.close(code, reason);
    } catch { /* already closing */ }
    this.#ended();
  }

  #ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stopProcesses();
    this.#options.onClose?.(this);
  }

  #send(message: ProcessMessage): void {
    if (this.#socket.readyState !== WebSocket.OPEN) return;
    try {
      this.#socket.send(JSON.stringify(message));
    } catch { /* closed meanwhile: the close stops the programs */ }
  }

  #refuse(id: number | string | null, error: unknown): void {
    const known = error instanceof Error;
    this.#send({
      type: "error",
      id,
      name: known ? error.name : "Error",
      message: known ? error.message : String(error),
    });
  }

  #receive(data: unknown): void {
    if (this.#closed) return;
    let request: ProcessRequest;
    try {
      request = parseProcessRequest(data);
    } catch (error) {
      this.#refuse(error instanceof ProcessRequestError ? error.requestId : null, error);
      return;
    }
    this.#handle(request).catch((error) => this.#refuse(request.id, error));
  }

  async #handle(request: ProcessRequest): Promise<void> {
    if (request.type === "spawn") return await this.#spawn(request);
    const process = this.#processes.get(request.pid);
    if (!process) {
      throw new ProcessRequestError(
        request.id,
        `pid ${request.pid} is not a running program this screen started; a screen may ` +
          `${request.type === "write" ? "write to" : request.type} only the programs it started`,
      );
    }
    switch (request.type) {
      case "write":
        try {
          await process.write(request.text);
        } catch (error) {
          throw new Error(
            `Cannot write to ${process.command} (pid ${process.pid}): its input is closed ` +
              `(${error instanceof Error ? error.message : String(error)})`,
          );
        }
        break;
      case "end":
        await process.end().catch(() => {/* already closed: the end is reached either way */});
        break;
      case "kill":
        process.stop().catch(() => {});
        break;
    }
    this.#send({ type: "done", id: request.id });
  }

  async #spawn(request: SpawnRequest): Promise<void> {
    const { project, packageId } = this.address;
    const standing = this.#options.standing();
    const declared = await readDeclaredProcess(
      this.#options.kv,
      project,
      packageId,
      request.process,
    );
    if (this.#closed) return;
    // stderr may come before the start is answered: held until it is.
    let early: string[] | undefined = [];
    let pid = 0;
    const program = declared.program;
    const process = await this.#options.supervisor.spawn(this.owner, {
      // A relative path is taken from the project, as with no cwd: were it taken from the
      // cwd the screen asks for, the screen would choose which file runs.
      command: program.includes("/") && !isAbsolute(program) ? join(project, program) : program,
      args: [...declared.args ?? [], ...request.args ?? []],
      cwd: request.cwd === undefined
        ? project
        : request.cwd === "~" || request.cwd.startsWith("~/") || isAbsolute(request.cwd)
        ? request.cwd
        : join(project, request.cwd),
      env: request.env,
      onStderr: (text) => {
        if (early) early.push(text);
        else this.#send({ type: "stderr", pid, text });
      },
    });
    pid = process.pid;
    if (this.#closed || this.#options.standing() !== standing) {
      // Never left running: the screen, or the package it was started for, is gone.
      process.stop().catch(() => {});
      await process.stdout.cancel().catch(() => {});
      throw new Error(
        `Cannot start ${declared.id} for ${packageId}: ` +
          (this.#closed
            ? "the screen's channel closed while it started; it was stopped"
            : "the package was removed or updated while it started; it was stopped"),
      );
    }
    this.#processes.set(pid, process);
    this.#send({ type: "spawned", id: request.id, pid });
    for (const text of early) this.#send({ type: "stderr", pid, text });
    early = undefined;
    this.#follow(process).catch(() => {});
  }

  /** Streams a program's stdout, then says it exited once its group has gone. */
  async #follow(process: SupervisedProcess): Promise<void> {
    const pid = process.pid;
    const reader = process.text().getReader();
    const reading = (async () => {
      try {
        while (true) {
          const { done, value } = await reader.read();
          if (done) return;
          this.#send({ type: "stdout", pid, text: value });
          await this.#drained();
        }
      } catch { /* cancelled below */ }
    })();
    const exit = await process.gone;
    // A helper that left the group may hold stdout open: not waited for long.
    const timer = setTimeout(() => reader.cancel().catch(() => {}), STDOUT_AFTER_GONE_MS);
    await reading;
    clearTimeout(timer);
    this.#processes.delete(pid);
    this.#send({ type: "exited", pid, code: exit.code, signal: exit.signal });
  }

  /** Waits while more than the limit waits to be sent to the page. */
  async #drained(): Promise<void> {
    while (
      this.#socket.readyState === WebSocket.OPEN &&
      this.#socket.bufferedAmount > SCREEN_PROCESS_LIMITS.maxBufferedBytes
    ) {
      await new Promise((resolve) => setTimeout(resolve, BACKLOG_POLL_MS));
    }
  }
}
