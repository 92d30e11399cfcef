/**
 * An isolate worker: a Web Worker started with no Deno permissions that runs
 * handler calls in QuickJS, one at a time. Each call gets a fresh QuickJS
 * context, thrown away when the call ends; the QuickJS runtime the contexts
 * live in is kept from call to call while calls end cleanly, and replaced
 * after any call that failed or left work behind.
 *
 * This file is the worker's life: QuickJS loaded from the module the host
 * compiled, its heap capped, the runtime and the next call's context kept
 * ready (with the service module evaluated in it when the last call's module
 * imported it), messages taken in, each call run and cleaned up after. What one
 * call does is `_call_session.ts`; what it runs in is `_engine.ts`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";
import wasmfile from "@jitl/quickjs-wasmfile-release-sync";
import {
  CallSession,
  CallStop,
  isWorkerStackOverflow,
  type Job,
  type LimitReached,
  send,
  stackOverflow,
} from "./_call_session.ts";
import {
  disposeFresh,
  type Engine,
  type FreshContext,
  freshContext,
  loadServiceModule,
  newEngine,
  serviceModule,
} from "./_engine.ts";
import {
  type CrossedError,
  type FromWorker,
  SERVICE_API_SPECIFIER,
  type ToWorker,
} from "../runtime/isolate/protocol.ts";

// The package's types describe its CommonJS entry; its ES entry, the one
// loaded here, has the variant as its default export. This variant keeps its
// Wasm in a file of its own, so the loader's JavaScript is small to parse.
const variant = wasmfile as unknown as QuickJSSyncVariant;

// QuickJS reads the time through this worker's `Date.now`. Set to the host's
// clock at each call (`CallMessage.now`), a handler reads the time its host
// keeps, a test's fake one included, going on from there; the call's deadline
// is measured on the same clock.
const workerNow = Date.now.bind(Date);
let clockOffset = 0;
Date.now = () => workerNow() + clockOffset;

// The bundle the pool starts holds the browser build of QuickJS's loader,
// which never looks at `process`. Run from its sources, the worker gets the
// Node build, which takes the Node path when it sees `process`, and Deno
// makes `process` on first use by loading its Node layer: some 30 ms of a
// worker's start, for nothing the worker needs, since it is handed QuickJS
// compiled. Taken away before anything looks at it, either build takes the
// worker path.
Reflect.deleteProperty(globalThis, "process");

/**
 * Heap growth past which the QuickJS instance is replaced between calls, so
 * that memory a call grew into is given back rather than lent to the next.
 */
const RECYCLE_GROWTH_BYTES = 64 * 1024 * 1024;

let wasmModule: WebAssembly.Module | undefined;
let quickjs: QuickJSWASMModule | undefined;

let engine: Engine | undefined;
/** The call running now: the runtime's module loader serves its context. */
let current: CallSession | undefined;

/**
 * The next call's context, made while the worker waits for that call, so a
 * call finds it ready. It belongs to `engine` and goes when the engine goes.
 */
let spare: FreshContext | undefined;
/**
 * The last call's module imported the service API: the next call's context
 * is made with the service module evaluated in it, while the worker waits,
 * since a handler's next call most often runs the same module.
 */
let spareWithService = false;
/** The spare context whose service module is being evaluated, for the module loader. */
let loadingSpare: FreshContext | undefined;
/** Wasm memory right after the current QuickJS instance started. */
let freshBytes = 0;
/**
 * While a call runs: the heap size it may grow to, and the first of the
 * call's limits it reached. Once one is reached the call fails with it,
 * whatever its code does next: a limit reached inside a promise job is
 * otherwise only the rejection of that job's promise, which code may drop.
 */
const guard = { heapLimit: Infinity, reached: undefined as LimitReached | undefined };

async function loadQuickJS(): Promise<QuickJSWASMModule> {
  if (!wasmModule) throw new Error("worker was not initialised");
  engine = undefined;
  spare = undefined;
  const module = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule }));
  capGrowth(module.getWasmMemory());
  freshBytes = wasmBytes(module);
  return module;
}

/** Frees the runtime; one that cannot be freed takes its QuickJS instance with it. */
function dropEngine(): void {
  const dropped = engine;
  engine = undefined;
  if (!dropped) return;
  try {
    if (spare) disposeFresh(spare);
    spare = undefined;
    dropped.encode.dispose();
    dropped.format.dispose();
    dropped.ownValue.dispose();
    dropped.describe.dispose();
    dropped.encoder.dispose();
    dropped.runtime.dispose();
  } catch {
    quickjs = undefined;
  }
}

/** Makes the runtime and the context the next call needs, unless they are there. */
function readyEngine(): void {
  if (quickjs && !engine) {
    try {
      engine = newEngine(
        quickjs,
        (name) =>
          current?.loadModule(name) ??
            (loadingSpare ? serviceModule(loadingSpare, name) : undefined) ??
            { error: new Error(`Cannot import "${name}" here`) },
      );
    } catch {
      quickjs = undefined;
    }
  }
  if (engine && !spare) {
    try {
      spare = freshContext(engine.runtime);
    } catch {
      dropEngine();
    }
  }
  if (engine && spare && spareWithService && !spare.serviceLoaded) {
    loadingSpare = spare;
    try {
      loadServiceModule(spare);
    } catch {
      // Whatever the module left in the runtime goes with it; the next call starts afresh.
      dropEngine();
    } finally {
      loadingSpare = undefined;
    }
  }
}

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  switch (message.type) {
    case "init":
      wasmModule = message.wasmModule;
      quickjs = await loadQuickJS();
      send({ type: "ready" });
      readyEngine();
      return;
    case "host-result":
      current?.onHostResult(message);
      return;
    case "ahead":
      if (current?.callId === message.callId) current.onAhead(message.values);
      return;
    case "call":
    case "probe": {
      const done = await runCall(message);
      if (!done.fatal && quickjs && wasmBytes(quickjs) - freshBytes > RECYCLE_GROWTH_BYTES) {
        quickjs = await loadQuickJS();
      }
      if (!quickjs) quickjs = await loadQuickJS().catch(() => undefined);
      readyEngine();
      return;
    }
  }
};

/**
 * QuickJS's own memory limit, in this build, refuses single allocations over
 * the cap but does not add allocations up. So the cap is enforced where the
 * heap grows: Emscripten grows it through `memory.grow`, and a refused growth
 * makes `malloc` fail, which QuickJS reports as "out of memory" in the call.
 */
function capGrowth(memory: WebAssembly.Memory): void {
  const grow = WebAssembly.Memory.prototype.grow;
  Object.defineProperty(memory, "grow", {
    value(pages: number): number {
      if (memory.buffer.byteLength + pages * 65536 > guard.heapLimit) {
        guard.reached ??= "memory";
        throw new RangeError("the call's memory cap was reached");
      }
      return grow.call(memory, pages);
    },
  });
}

function wasmBytes(module: QuickJSWASMModule): number {
  // deno-lint-ignore no-explicit-any
  return (module as any).getWasmMemory?.().buffer.byteLength ?? 0;
}

/**
 * Runs a call and sends its answer, then frees what the call used: the answer
 * leaves before its context is freed, which the host need not wait for.
 */
async function runCall(call: Job): Promise<FromWorker & { type: "done" }> {
  const base = { type: "done" as const, callId: call.callId };
  const sent = (done: FromWorker & { type: "done" }) => {
    // However the call ended, the host learns how many lines it dropped.
    const dropped = session?.consoleDropped ?? 0;
    if (dropped > 0) done.consoleDropped = dropped;
    send(done);
    return done;
  };
  readyEngine();
  if (!quickjs || !engine) {
    return sent({ ...base, error: crash("worker was not initialised"), fatal: true });
  }
  clockOffset = call.type === "call" && call.now !== undefined ? call.now - workerNow() : 0;
  const deadline = Date.now() + call.limits.timeoutMs;
  const { runtime } = engine;
  let fresh: FreshContext | undefined;
  let session: CallSession | undefined;
  let clean = false;
  try {
    runtime.setMemoryLimit(call.limits.memoryBytes);
    runtime.setMaxStackSize(call.limits.stackBytes);
    guard.heapLimit = quickjs.getWasmMemory().buffer.byteLength + call.limits.memoryBytes;
    guard.reached = undefined;
    const limitReached = (): LimitReached | undefined => {
      if (!guard.reached && Date.now() > deadline) guard.reached = "time";
      return guard.reached;
    };
    // Past either limit, QuickJS stops whatever runs, so a handler that
    // caught the refused allocation does not run on to the deadline. Background
    // work pauses here while a person's request goes first.
    const yieldTo = call.type === "call" ? call.yieldTo : undefined;
    runtime.setInterruptHandler(() => {
      if (yieldTo && Atomics.load(yieldTo, 0) === 1) giveWay(yieldTo, deadline);
      return limitReached() !== undefined;
    });
    fresh = spare ?? freshContext(runtime);
    spare = undefined;
    spareWithService = call.source.includes(SERVICE_API_SPECIFIER);
    session = new CallSession(call, fresh, runtime, engine, deadline, limitReached);
    fresh.session = session;
    current = session;
    const value = call.type === "probe" ? await session.probe() : await session.run();
    clean = !session.failed;
    const reads = session.reads;
    return sent({ ...base, value, ...(reads.length > 0 ? { reads } : {}) });
  } catch (error) {
    if (error instanceof CallStop) return sent({ ...base, error: error.crossed });
    if (isWorkerStackOverflow(error)) {
      // The worker's own stack ran out inside QuickJS, before QuickJS's cap
      // did: V8 unwound the WebAssembly frames mid-operation, so this QuickJS
      // instance is dropped, not disposed (freeing its half-built objects
      // aborts), and the call fails as the resource error it is.
      quickjs = undefined;
      engine = undefined;
      return sent({ ...base, error: stackOverflow(call, session?.stage ?? "load") });
    }
    // Anything else came from the Wasm side (an abort, a broken heap): the
    // whole QuickJS instance is suspect, so the host replaces this worker.
    quickjs = undefined;
    engine = undefined;
    return sent({ ...base, error: crash(String(error)), fatal: true });
  } finally {
    current = undefined;
    guard.heapLimit = Infinity;
    if (quickjs && engine && !session?.broken) {
      let freed = false;
      try {
        // QuickJS does not free cleanly a runtime whose queue still holds
        // jobs of the call (a chain of promises each waiting on the next),
        // nor one where an allocation failed inside a job: its own check
        // fails as it is freed. Then the instance is dropped unfreed, below.
        if (guard.reached !== "memory" && !runtime.hasPendingJob()) {
          runtime.removeInterruptHandler();
          session?.dispose();
          if (fresh) disposeFresh(fresh);
          freed = true;
        }
      } catch {
        // A context that cannot be disposed is dropped with its instance, below.
      }
      if (!freed) {
        quickjs = undefined;
        engine = undefined;
      }
      // A call that failed may have stopped QuickJS anywhere (out of memory,
      // interrupted): the next call gets a runtime of its own.
      if (!clean) dropEngine();
    } else {
      quickjs = undefined;
      engine = undefined;
    }
  }
}

/** Pauses the worker while `flag` is 1: 100 ms at most, and never past the call's deadline. */
function giveWay(flag: Int32Array, deadline: number): void {
  const wait = Math.min(GIVE_WAY_MS, deadline - Date.now());
  if (wait > 0) Atomics.wait(flag, 0, 1, wait);
}

/** The longest one pause for a person's request lasts, in ms. */
const GIVE_WAY_MS = 100;

function crash(detail: string): CrossedError {
  return { name: "IsolateCrashError", message: `The isolate crashed: ${detail}` };
}
