/**
 * The app's end of a screen's bridge: reads every message the screen sends
 * on its port (`bridge_protocol.ts`), answers each request by calling the
 * API for the package of this frame — never a package the screen names —
 * and passes the output of the processes it started back to it.
 *
 * @module
 */
import type { ScreenCallResponse, ScreenValueResponse } from "../../runtime/web/api/types.ts";
import { ApiError, messageOf, postJson } from "../api/client.ts";
import {
  type AppMessage,
  type BridgeErrorValue,
  readScreenMessage,
  type ScreenMethods,
  type ScreenRequest,
} from "./bridge_protocol.ts";
import type { RunningProcess, ScreenProcesses } from "./screen_processes.ts";

/** What the screen said of its `activate(ctx)`. */
export type Activation =
  | { state: "waiting" }
  | { state: "active" }
  | { state: "failed"; message: string };

/** Options for {@linkcode ScreenBridge}. */
export interface ScreenBridgeOptions {
  /** The project folder. */
  project: string;
  /** The package whose screen this frame shows. */
  id: string;
  /** The processes of this screen instance; closed with the bridge. */
  processes: ScreenProcesses;
  /** Hears what the screen says of its activation. */
  onActivation?: (activation: Activation) => void;
  /** Hears every refused message, with why. */
  onRefusal?: (reason: string) => void;
}

/** The app's end of one screen instance's channel. */
export class ScreenBridge {
  #port: MessagePort;
  #options: ScreenBridgeOptions;
  #processes = new Map<number, RunningProcess>();
  #nextProcess = 1;
  #closed = false;

  /**
   * Starts answering the screen on `port`.
   *
   * @param port The app's port of the channel whose other port the frame holds.
   * @param options The project and package of the frame, its processes, and who hears what.
   */
  constructor(port: MessagePort, options: ScreenBridgeOptions) {
    this.#port = port;
    this.#options = options;
    port.onmessage = (event) => this.#receive(event.data);
    port.onmessageerror = () => this.#refuse(null, "the message could not be deserialised");
    port.start();
  }

  /** Stops answering, closes the port and stops every process this instance started. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#port.onmessage = null;
    this.#port.close();
    this.#processes.clear();
    this.#options.processes.close();
  }

  #receive(data: unknown): void {
    if (this.#closed) return;
    const read = readScreenMessage(data);
    if (!read.ok) {
      this.#refuse(read.id, read.reason);
      return;
    }
    const message = read.message;
    if (message.type === "activated") {
      this.#options.onActivation?.({ state: "active" });
      return;
    }
    if (message.type === "activation-failed") {
      this.#options.onActivation?.({ state: "failed", message: message.message });
      return;
    }
    this.#answer(message).then(
      (value) => this.#send({ type: "response", id: message.id, ok: true, value: value ?? null }),
      (error) => this.#send({ type: "response", id: message.id, ok: false, error: errorOf(error) }),
    );
  }

  #refuse(id: number | null, reason: string): void {
    this.#options.onRefusal?.(reason);
    this.#send({
      type: "response",
      id,
      ok: false,
      error: { name: "BridgeError", message: `Sync refused the message: ${reason}` },
    });
  }

  #send(message: AppMessage): void {
    if (this.#closed) return;
    try {
      this.#port.postMessage(message);
    } catch (error) {
      // A value that cannot be cloned is answered as an error instead.
      if (message.type === "response" && message.ok) {
        this.#send({
          type: "response",
          id: message.id,
          ok: false,
          error: {
            name: "BridgeError",
            message: `the answer could not cross: ${messageOf(error)}`,
          },
        });
      }
    }
  }

  async #answer(request: ScreenRequest): Promise<unknown> {
    const { project, id } = this.#options;
    switch (request.method) {
      case "handlers.call": {
        const answer = await postJson<ScreenCallResponse>("/api/screens/call", {
          project,
          id,
          handler: request.params.name,
          payload: request.params.payload ?? null,
        });
        return answer.value;
      }
      case "memory.list":
        return await this.#value("/api/screens/memory", {
          read: "list",
          query: request.params.query ?? {},
        });
      case "memory.record":
      case "memory.content":
        return await this.#value("/api/screens/memory", {
          read: request.method === "memory.record" ? "record" : "content",
          key: request.params.key,
        });
      case "net.fetch":
        return await this.#value("/api/screens/net", { request: request.params.request });
      case "host.spawn":
        return await this.#spawn(request.params);
      case "process.write":
        await this.#process(request.params.process).write(request.params.text);
        return null;
      case "process.end":
        await this.#process(request.params.process).end();
        return null;
      case "process.kill":
        await this.#process(request.params.process).kill();
        return null;
    }
  }

  async #value(path: string, body: Record<string, unknown>): Promise<unknown> {
    const { project, id } = this.#options;
    return (await postJson<ScreenValueResponse>(path, { project, id, ...body })).value;
  }

  async #spawn(params: ScreenMethods["host.spawn"]): Promise<{ process: number; pid: number }> {
    const handle = this.#nextProcess++;
    const running = await this.#options.processes.spawn(params.id, {
      ...(params.args ? { args: params.args } : {}),
      ...(params.cwd !== undefined ? { cwd: params.cwd } : {}),
      ...(params.env ? { env: params.env } : {}),
    }, {
      onStdout: (text) =>
        this.#send({ type: "process-output", process: handle, stream: "stdout", text }),
      onStderr: (text) =>
        this.#send({ type: "process-output", process: handle, stream: "stderr", text }),
    });
    if (this.#closed) {
      // The screen went away while it started: it is not left running.
      void Promise.resolve(running.kill()).catch(() => {});
      throw new Error("the screen closed while the process started");
    }
    this.#processes.set(handle, running);
    running.exited.then(
      (end) => {
        this.#processes.delete(handle);
        this.#send({ type: "process-exit", process: handle, ...end });
      },
      () => {
        this.#processes.delete(handle);
        this.#send({ type: "process-exit", process: handle, code: null, signal: null });
      },
    );
    return { process: handle, pid: running.pid };
  }

  #process(handle: number): RunningProcess {
    const running = this.#processes.get(handle);
    if (!running) {
      throw new NamedError(
        "NotFoundError",
        `process ${handle} is not one this screen started, or it has ended`,
      );
    }
    return running;
  }
}

/** An error with the name it crosses under. */
class NamedError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** An error as it crosses to the screen: the server's name and words when it gave them. */
function errorOf(error: unknown): BridgeErrorValue {
  if (error instanceof ApiError) {
    return { name: error.errorName ?? "Error", message: error.message };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: String(error) };
}
