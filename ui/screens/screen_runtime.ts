/**
 * Sync's screen runtime: the one script of a screen's document besides the
 * package's own, served into the sandboxed frame as `runtime.js` (bundled
 * by `deno task build:ui` into `ui/dist/screen.js`).
 *
 * It waits for the app's connect message and its port, builds `ctx` over
 * that port, imports the package's screen module (`index.js`, beside it) and
 * calls its `activate(ctx)`. A failure to load or activate is shown in the
 * frame as text and told to the app.
 *
 * @module
 */
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type {
  JsonValue,
  NetResponse,
  ProcessExit,
  RecordPage,
  RecordSummary,
  ScreenContext,
  ScreenModule,
  ScreenProcess,
  SpawnOptions,
} from "../../runtime/extension_api/ui.ts";
import {
  type ConnectMessage,
  readAppMessage,
  readConnectMessage,
  type ScreenMethod,
  type ScreenMethods,
} from "./bridge_protocol.ts";

/** A request waiting for its answer. */
interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A process the screen started, and where its output goes. */
interface Started {
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  exit(end: ProcessExit): void;
}

listenForConnect();

/** Takes the first connect message from the app (the parent), and only that. */
function listenForConnect(): void {
  const onMessage = (event: MessageEvent) => {
    if (event.source !== parent || event.ports.length !== 1) return;
    const connect = readConnectMessage(event.data);
    if (!connect) return;
    removeEventListener("message", onMessage);
    void start(connect, event.ports[0]);
  };
  addEventListener("message", onMessage);
}

async function start(connect: ConnectMessage, port: MessagePort): Promise<void> {
  const pending = new Map<number, Pending>();
  const processes = new Map<number, Started>();
  let nextId = 1;
  port.onmessage = (event) => {
    const message = readAppMessage(event.data);
    if (!message) return;
    if (message.type === "response") {
      if (message.id === null) {
        if (message.ok) return;
        console.error(`Sync refused a message of this screen: ${message.error.message}`);
        return;
      }
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.ok) waiting.resolve(message.value);
      else waiting.reject(namedError(message.error.name, message.error.message));
      return;
    }
    const started = processes.get(message.process);
    if (!started) return;
    if (message.type === "process-exit") {
      processes.delete(message.process);
      started.exit({ code: message.code ?? null, signal: message.signal ?? null });
      return;
    }
    const callback = message.stream === "stdout" ? started.onStdout : started.onStderr;
    try {
      callback?.(message.text);
    } catch (error) {
      // A throwing output callback loses nothing else: later output and the exit still come.
      console.error(
        `The screen's on${message.stream === "stdout" ? "Stdout" : "Stderr"} threw`,
        error,
      );
    }
  };
  port.start();

  const request = <M extends ScreenMethod>(method: M, params: ScreenMethods[M]) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      try {
        port.postMessage({ type: "request", id, method, params });
      } catch (error) {
        pending.delete(id);
        reject(namedError("DataCloneError", `the argument cannot cross to Sync: ${error}`));
      }
    });

  const spawn = async (id: string, options: SpawnOptions = {}): Promise<ScreenProcess> => {
    const { onStdout, onStderr, ...rest } = options;
    const answer = await request("host.spawn", { id, ...rest }) as { process: number; pid: number };
    let exit!: (end: ProcessExit) => void;
    const exited = new Promise<ProcessExit>((resolve) => exit = resolve);
    processes.set(answer.process, { onStdout, onStderr, exit });
    const handle = answer.process;
    return Object.freeze({
      pid: answer.pid,
      write: async (text: string) => void await request("process.write", { process: handle, text }),
      end: async () => void await request("process.end", { process: handle }),
      kill: async () => void await request("process.kill", { process: handle }),
      exited,
    });
  };

  const ctx: ScreenContext = Object.freeze({
    apiVersion: connect.apiVersion,
    screen: Object.freeze({ ...connect.screen }),
    handlers: Object.freeze({
      call: async (name: string, payload?: JsonValue) =>
        await request("handlers.call", { name, payload: payload ?? null }) as JsonValue,
    }),
    memory: Object.freeze({
      list: async (query = {}) =>
        await request("memory.list", { query: query as Record<string, unknown> }) as RecordPage,
      record: async (key: string) =>
        await request("memory.record", { key }) as RecordSummary | null,
      content: async (key: string) => await request("memory.content", { key }) as string | null,
    }),
    net: Object.freeze({
      fetch: async (req: unknown) => await request("net.fetch", { request: req }) as NetResponse,
    }),
    host: Object.freeze({ spawn }),
  });

  try {
    const module = await import(new URL("./index.js", import.meta.url).href) as Partial<
      ScreenModule
    >;
    if (typeof module.activate !== "function") {
      throw new Error("the screen module exports no activate(ctx) function");
    }
    await module.activate(ctx);
    port.postMessage({ type: "activated" });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    showFailure(message);
    port.postMessage({ type: "activation-failed", message });
  }
}

/** Shows why the screen could not start, as text, where the screen would be. */
function showFailure(message: string): void {
  const note = document.createElement("p");
  note.className = "error screen-failure";
  note.setAttribute("role", "alert");
  note.textContent = `This screen could not start: ${message}`;
  document.body.append(note);
}

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}
