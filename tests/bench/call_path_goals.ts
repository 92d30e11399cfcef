/**
 * Goals 3d, 3e, 4, 5, 6 and 7 of the call path: every handler call line timed
 * in rounds against the baselines it is held to, all measured in the same
 * run, with the installation KV on disk as `serve` opens it (`:memory:` only
 * as an extra line), and four concurrent callers against the bound one
 * caller's CPU by thread sets. See `docs/benchmarks.md`.
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { loadQuickJs } from "@sebastianwessel/quickjs";
import variant from "@jitl/quickjs-singlefile-mjs-release-sync";
import { Host } from "../../runtime/host/host.ts";
import type { CallOptions } from "../../runtime/host/call.ts";
import { type IsolateCall, IsolatePool } from "../../runtime/isolate/pool.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import { openInstallation } from "../../runtime/projects/home.ts";
import type { Goal, ReportLine } from "./goal_report.ts";
import { loadQuickJSInProcess, quickJSOneShot } from "./quickjs_one_shot.ts";
import { sampleInRounds, type Timing } from "./sample.ts";
import {
  busiestSharedThread,
  concurrentBound,
  coresAvailable,
  cpuPerCallByGroup,
  threadStats,
  ticksPerSecond,
} from "./thread_cpu.ts";
import { writePackage } from "../internal/packages.ts";

/** The trivial handlers: no imports, so every runner evaluates the same text. */
const TRIVIAL = ["bench.noop", "bench.a", "bench.b", "bench.c", "bench.d"];
const TRIVIAL_SOURCE = `export default function register() {
  return {
${TRIVIAL.map((h) => `    ${JSON.stringify(h)}: () => ({ ok: true }),`).join("\n")}
  };
}
`;
const LIST_SOURCE = `import { memory } from "@sync/extension-api/service";

export default function register() {
  return {
    "benchlist.list": async () => {
      const { records } = await memory.list({ kind: "benchlist.item", limit: 3 });
      return { ok: true, count: records.length };
    },
  };
}
`;
const RECORDS = 50;
const CALL: CallOptions = { occasion: { kind: "extension" }, source: { kind: "person" } };

/** Options for {@linkcode measureCallPath}. */
export interface CallPathOptions {
  /** Rounds over all lines; more is steadier and slower. */
  rounds?: number;
  /** Calls each concurrent caller makes in one run (enough for CPU read in 10 ms ticks). */
  concurrentCalls?: number;
  /** Untimed runs of each line before the first round (see {@linkcode WARMUP}). */
  warmup?: number;
}

/**
 * Untimed runs of each line before it is timed: enough for V8 to have tiered
 * up the call path, which a pool call's time shows settling after 300–500
 * calls of the same worker (the pool line's, the host lines' and these
 * together).
 */
const WARMUP = 200;

/** What {@linkcode measureCallPath} measured. */
export interface CallPathResult {
  lines: ReportLine[];
  goals: Goal[];
}

/** A host over `kv` with both bench packages installed into a project of its own. */
async function benchInstallation(
  root: string,
  packages: string[],
  kv: Deno.Kv,
  name: string,
): Promise<{ host: Host; project: string }> {
  const projectDir = join(root, `project-${name}`);
  await Deno.mkdir(projectDir, { recursive: true });
  // The rate limit would refuse a benchmark's thousands of calls a minute.
  const host = new Host({
    kv,
    home: join(root, `home-${name}`),
    limits: { ...DEFAULT_LIMITS, rateLimit: 1e9 },
    log: () => {},
  });
  let project = "";
  for (const dir of packages) {
    project = (await installPackage(host, dir, projectDir, { approve: true })).project;
  }
  return { host, project };
}

/** Sends `message` to `worker` and waits for its one answer. */
function ask<T>(worker: Worker, message: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    worker.postMessage(message);
  });
}

function permissionless(url: URL): Worker {
  return new Worker(url, { type: "module", deno: { permissions: "none" } } as WorkerOptions);
}

/** Throws unless a trivial handler answered `{ ok: true }`. */
function expectOk(what: string, value: unknown): void {
  if ((value as { ok?: unknown } | null)?.ok !== true) {
    throw new Error(`${what} answered ${JSON.stringify(value)}`);
  }
}

/** `calls` calls of `handler` one after another; resolves when all answered. */
async function caller(host: Host, project: string, handler: string, calls: number) {
  for (let i = 0; i < calls; i++) await host.callHandler(project, "bench", handler, CALL);
}

/** One run of concurrent callers: its rate, and the CPU each call took, in all and by thread. */
interface CallersRun {
  /** Calls per second over the run. */
  rate: number;
  /** Wall time per call of one caller (the run's time ÷ calls each caller made), ms. */
  msPerCall: number;
  /** CPU per call over every thread of the process (getrusage), ms. */
  cpuMsPerCall: number;
  /** CPU per call by thread group (from `/proc`, in 10 ms ticks), ms. */
  byThread: Map<string, number>;
  /** CPU per call of the busiest thread all calls share, ms. */
  sharedThreadMsPerCall: number;
  /**
   * The cores the process got around the run ({@linkcode coresAvailable}), or
   * the CPU the run used ÷ its time when that is more; set for four callers.
   */
  cores?: number;
}

/**
 * `callers` callers at once, each on its own handler, each making `calls`
 * calls, with the process's CPU read before and after.
 */
async function runCallers(
  host: Host,
  project: string,
  callers: number,
  calls: number,
  hz: number,
): Promise<CallersRun> {
  const before = await threadStats();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    TRIVIAL.slice(1, 1 + callers).map((handler) => caller(host, project, handler, calls)),
  );
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const after = await threadStats();
  const total = callers * calls;
  return {
    rate: total / (ms / 1000),
    msPerCall: ms / calls,
    cpuMsPerCall: (cpu.user + cpu.system) / 1000 / total,
    byThread: cpuPerCallByGroup(before, after, { pid: Deno.pid, calls: total, ticksPerSecond: hz }),
    sharedThreadMsPerCall: busiestSharedThread(before, after, {
      pid: Deno.pid,
      calls: total,
      ticksPerSecond: hz,
    }),
  };
}

/** The run with the most calls a second. */
function fastest(runs: CallersRun[]): CallersRun {
  return runs.reduce((best, run) => run.rate > best.rate ? run : best);
}

/** Measures the call path's lines and forms goals 3d, 3e, 4, 5, 6 and 7 from them. */
export async function measureCallPath(options: CallPathOptions = {}): Promise<CallPathResult> {
  const rounds = options.rounds ?? 10;
  const root = await Deno.makeTempDir({ prefix: "sync-call-bench-" });
  const closers: (() => void)[] = [];
  try {
    const trivialDir = await writePackage(root, {
      id: "bench",
      handlers: TRIVIAL,
      service: TRIVIAL_SOURCE,
    });
    const listDir = await writePackage(root, {
      id: "benchlist",
      handlers: ["benchlist.list"],
      service: LIST_SOURCE,
    });

    // The installation KV on disk, opened as `serve` opens it.
    const diskKv = await openInstallation(join(root, "home-disk"));
    closers.push(() => diskKv.close());
    const disk = await benchInstallation(root, [trivialDir, listDir], diskKv, "disk");
    closers.push(() => disk.host.close());
    const memoryKv = await Deno.openKv(":memory:");
    closers.push(() => memoryKv.close());
    const inMemory = await benchInstallation(root, [trivialDir], memoryKv, "memory");
    closers.push(() => inMemory.host.close());

    const memory = await disk.host.projectMemory(disk.project);
    for (let n = 0; n < RECORDS; n++) {
      await writeRecord(memory, { key: `benchlist.item/${n}`, title: `Item ${n}`, fields: { n } });
    }

    const echo = permissionless(new URL("./_echo_worker.ts", import.meta.url));
    closers.push(() => echo.terminate());
    const plain = permissionless(new URL("./_plain_worker.ts", import.meta.url));
    closers.push(() => plain.terminate());
    const quickjs = await loadQuickJSInProcess();
    const { runSandboxed } = await loadQuickJs(variant);
    // The same handler for the peer: the module's default export is what it answers.
    const peerCode =
      TRIVIAL_SOURCE.replace("export default function register", "function register") +
      `export default await register()["bench.noop"](null, ${JSON.stringify(CALL.occasion)});\n`;

    const pool = disk.host.pool;
    const direct: IsolateCall = {
      source: TRIVIAL_SOURCE,
      sourceName: "bench/service/index.js",
      packageId: "bench",
      handler: "bench.noop",
      payload: null,
      occasion: CALL.occasion,
      limits: disk.host.limits,
    };
    const noHostFunctions = { host: () => Promise.reject(new Error("no host functions here")) };
    let commits = 0;
    let plainCalls = 0;

    const line = {
      roundTrip: "raw worker postMessage round trip",
      oneShot: "QuickJS in-process one-shot (runtime + context + module + call)",
      pool: "IsolatePool.call, trivial handler",
      commit: "one KV atomic commit, installation KV on disk",
      commitAfterPool: "one KV atomic commit right after a pool call, as a call makes it",
      read: "one KV read, installation KV on disk",
      host: "Host.callHandler, trivial, installation KV on disk",
      list: "Host.callHandler, one memory.list of 3 (50 records), KV on disk",
      hostMemory: "Host.callHandler, trivial, installation KV :memory: (extra)",
      sandboxed: "@sebastianwessel/quickjs runSandboxed, same handler",
      plain: "plain permissionless Deno Worker, same handler, no QuickJS",
      cold: "cold start of a worker: new IsolatePool + warm() + close()",
    };
    const lines = [
      { name: line.roundTrip, run: () => ask(echo, { ping: 1 }) },
      {
        name: line.oneShot,
        run: () => Promise.resolve(quickJSOneShot(quickjs, TRIVIAL_SOURCE, "bench.noop", null)),
      },
      { name: line.pool, run: () => pool.call(direct, noHostFunctions) },
      {
        name: line.commit,
        run: () => diskKv.atomic().set(["bench", "commit"], ++commits).commit(),
      },
      // The same write, made as a call makes it: once the disk has been idle
      // for a pool call, where the line above makes one write after another.
      {
        name: line.commitAfterPool,
        setup: () => pool.call(direct, noHostFunctions),
        run: () => diskKv.atomic().set(["bench", "commit"], ++commits).commit(),
      },
      { name: line.read, run: () => diskKv.get(["bench", "commit"]) },
      {
        name: line.host,
        run: () => disk.host.callHandler(disk.project, "bench", "bench.noop", CALL),
      },
      {
        name: line.list,
        run: () => disk.host.callHandler(disk.project, "benchlist", "benchlist.list", CALL),
      },
      {
        name: line.hostMemory,
        run: () => inMemory.host.callHandler(inMemory.project, "bench", "bench.noop", CALL),
      },
      { name: line.sandboxed, run: () => runSandboxed(({ evalCode }) => evalCode(peerCode), {}) },
      {
        name: line.plain,
        run: () =>
          ask(plain, {
            n: ++plainCalls,
            source: TRIVIAL_SOURCE,
            handler: "bench.noop",
            payload: null,
            occasion: CALL.occasion,
          }),
      },
      {
        name: line.cold,
        async run() {
          const fresh = new IsolatePool({ size: 1 });
          try {
            await fresh.warm();
          } finally {
            fresh.close();
          }
        },
      },
    ];

    // Every path once, so a broken setup fails here rather than as a fast wrong number.
    await pool.warm();
    expectOk("one-shot", quickJSOneShot(quickjs, TRIVIAL_SOURCE, "bench.noop", null));
    expectOk("pool", await pool.call(direct, noHostFunctions));
    for (const handler of TRIVIAL) {
      expectOk(handler, (await disk.host.callHandler(disk.project, "bench", handler, CALL)).value);
    }
    const listed = await disk.host.callHandler(disk.project, "benchlist", "benchlist.list", CALL);
    if ((listed.value as { count?: number }).count !== 3) {
      throw new Error(`benchlist.list answered ${JSON.stringify(listed.value)}`);
    }
    const sandboxed = await runSandboxed(({ evalCode }) => evalCode(peerCode), {});
    if (!sandboxed.ok) throw new Error(`runSandboxed failed: ${JSON.stringify(sandboxed)}`);
    expectOk("runSandboxed", sandboxed.data);
    const plainAnswer = await ask<{ json?: string; error?: string }>(plain, {
      n: 0,
      source: TRIVIAL_SOURCE,
      handler: "bench.noop",
      payload: null,
      occasion: CALL.occasion,
    });
    expectOk("plain worker", plainAnswer.json ? JSON.parse(plainAnswer.json) : plainAnswer);

    // A process that serves runs for hours; V8 tiers up the code of a call
    // path (the worker's glue, QuickJS's WebAssembly, the host's own) only
    // after some hundreds of calls, and until then a pool call costs up to
    // twice what it settles at. Every line is run that often untimed first,
    // so that each is timed as it runs in a process that has been serving.
    const timings = await sampleInRounds(
      lines.filter((l) => l.name !== line.cold),
      { rounds, perRound: 10, warmup: options.warmup ?? WARMUP },
    );
    // A cold start costs tens of ms: fewer samples, in rounds of their own.
    const cold = await sampleInRounds(lines.filter((l) => l.name === line.cold), {
      rounds,
      perRound: 2,
      warmup: 1,
    });
    const t = (name: string): Timing => (timings.get(name) ?? cold.get(name))!;
    const p50 = (name: string) => t(name).p50;

    // Goal 5: one caller, then four on different handlers, alternating so load falls on both.
    // The cores the process gets are read right before and after each four-caller run: on a
    // machine other processes keep busy, the scheduler gives it less than all of them. A run
    // that used more than that shows the process could have it: the more of the two counts.
    const calls = options.concurrentCalls ?? 200;
    const hz = await ticksPerSecond();
    const machineCores = navigator.hardwareConcurrency;
    await runCallers(disk.host, disk.project, 4, 5, hz);
    const ones: CallersRun[] = [];
    const fours: CallersRun[] = [];
    for (let round = 0; round < 3; round++) {
      ones.push(await runCallers(disk.host, disk.project, 1, calls, hz));
      const coresBefore = await coresAvailable(machineCores);
      const run = await runCallers(disk.host, disk.project, 4, calls, hz);
      const used = run.rate * run.cpuMsPerCall / 1000;
      run.cores = Math.min(
        machineCores,
        Math.max(used, (coresBefore + await coresAvailable(machineCores)) / 2),
      );
      fours.push(run);
    }
    const one = fastest(ones);
    const four = fastest(fours);
    const cores = four.cores!;
    const bound = concurrentBound(one, { cores, callers: 4 });
    const machineBound = concurrentBound(one, { cores: machineCores, callers: 4 });

    const reportLines: ReportLine[] = Object.values(line).map((name) => ({
      name,
      timing: t(name),
    }));
    const once = (name: string, ms: number, samples: number): ReportLine => ({
      name,
      timing: { p50: ms, mean: ms, samples },
    });
    reportLines.push(
      once("one caller: ms per call (fastest of 3 runs)", 1000 / one.rate, calls),
      once(
        "four concurrent callers: ms per call overall (fastest of 3)",
        1000 / four.rate,
        calls * 4,
      ),
    );
    for (
      const [who, run, total] of [["one caller", one, calls], [
        "four callers",
        four,
        calls * 4,
      ]] as const
    ) {
      reportLines.push(once(`${who}: CPU per call, every thread`, run.cpuMsPerCall, total));
      for (const [group, ms] of run.byThread) {
        reportLines.push(once(`${who}: CPU per call, ${group}`, ms, total));
      }
    }

    const poolFloor = p50(line.oneShot) + p50(line.roundTrip);
    const hostFloor = p50(line.pool) + p50(line.commit);
    const goals: Goal[] = [
      {
        name: "6. pool call",
        formula: "IsolatePool.call ÷ (QuickJS in-process one-shot + raw worker round trip)",
        measured: p50(line.pool) / poolFloor,
        limit: 1.5,
        direction: "at most",
        unit: "×",
      },
      {
        name: "3d. host call, trivial, KV on disk",
        formula: "Host.callHandler trivial ÷ (IsolatePool.call + one KV commit on disk)",
        measured: p50(line.host) / hostFloor,
        limit: 1.5,
        direction: "at most",
        unit: "×",
      },
      {
        name: "3d. with the commit as a call makes it (printed, no limit)",
        formula:
          "Host.callHandler trivial ÷ (IsolatePool.call + one KV commit right after a pool call)",
        measured: p50(line.host) / (p50(line.pool) + p50(line.commitAfterPool)),
        direction: "at most",
        unit: "×",
      },
      {
        name: "3e. host call with one memory.list of 3, KV on disk",
        formula: "Host.callHandler memory.list ÷ (IsolatePool.call + one KV commit + one KV read)",
        measured: p50(line.list) / (hostFloor + p50(line.read)),
        limit: 1.5,
        direction: "at most",
        unit: "×",
      },
      {
        name: "4. cold start of a worker",
        formula: "new IsolatePool + warm() + close(), p50",
        measured: p50(line.cold),
        limit: 30,
        direction: "at most",
        unit: "ms",
      },
      {
        name: "5. four concurrent callers, against the bound from CPU per call",
        formula: `four callers on different handlers, ${four.rate.toFixed(0)} calls/s ÷ ` +
          `the bound, ${bound.toFixed(0)}/s = the least of ${cores.toFixed(2)} cores the ` +
          `process got (of ${machineCores}) ÷ one call's CPU (${
            one.cpuMsPerCall.toFixed(2)
          } ms), ` +
          `4 callers ÷ one call's time (${one.msPerCall.toFixed(2)} ms), and 1 ÷ the CPU per ` +
          `call of the busiest thread all calls share (${one.sharedThreadMsPerCall.toFixed(2)} ms)`,
        measured: four.rate / bound,
        limit: 0.8,
        direction: "at least",
        unit: "×",
      },
      {
        name: "5. against the bound from every core of the machine (printed, no limit)",
        formula: `${four.rate.toFixed(0)} calls/s ÷ ${machineBound.toFixed(0)}/s, the bound ` +
          `with all ${machineCores} cores: what goal 5 reads on a machine nothing else uses`,
        measured: four.rate / machineBound,
        direction: "at least",
        unit: "×",
      },
      {
        name: "5. four callers ÷ one caller (printed, no limit)",
        formula: `calls per second of four callers (${four.rate.toFixed(0)}/s) ÷ of one ` +
          `(${one.rate.toFixed(0)}/s); the bound is ${(bound / one.rate).toFixed(2)}× one caller's`,
        measured: four.rate / one.rate,
        direction: "at least",
        unit: "×",
      },
      {
        name: "7. Sync vs runSandboxed",
        formula: "@sebastianwessel/quickjs runSandboxed ÷ Host.callHandler trivial (KV on disk)",
        measured: p50(line.sandboxed) / p50(line.host),
        limit: 5,
        direction: "at least",
        unit: "×",
      },
      {
        name: "7. Sync vs a plain Worker (printed, no limit)",
        formula: "Host.callHandler trivial (KV on disk) ÷ plain permissionless Worker, no QuickJS",
        measured: p50(line.host) / p50(line.plain),
        direction: "at most",
        unit: "×",
      },
    ];
    return { lines: reportLines, goals };
  } finally {
    for (const close of closers.reverse()) {
      try {
        close();
      } catch {
        // Closing what is already closed is fine at the end of a run.
      }
    }
    await Deno.remove(root, { recursive: true });
  }
}
