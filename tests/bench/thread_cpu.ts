/**
 * CPU time by thread of this process, read from `/proc/<pid>/task/<tid>/stat`
 * (Linux), and the bound it sets on concurrent callers.
 *
 * Deno reads `/proc` only with every permission granted, so the threads are
 * listed with `ps -L` and their stat lines read with `cat`, as the
 * supervisor asks `ps` of processes. A stat line counts CPU in clock ticks
 * (`getconf CLK_TCK`, 100 a second on Linux): 10 ms, so a window is timed over
 * hundreds of calls.
 *
 * @module
 */
import process from "node:process";

/** One thread's line of `/proc/<pid>/task/<tid>/stat`. */
export interface ThreadStat {
  /** Its id. */
  tid: number;
  /** Its name (`comm`, at most 15 characters): `deno`, `worker-1`, `tokio-runtime-w`, … */
  comm: string;
  /** CPU it used in user and system mode, in clock ticks. */
  ticks: number;
}

/**
 * Reads one stat line. The name is in parentheses and may itself hold
 * spaces and parentheses, so the fields are counted from the last `)`:
 * state is field 3, utime 14 and stime 15.
 *
 * @throws {Error} when the line is not a stat line.
 */
export function parseTaskStat(line: string): ThreadStat {
  const open = line.indexOf("(");
  const close = line.lastIndexOf(")");
  if (open < 1 || close < open) throw new Error(`not a stat line: ${JSON.stringify(line)}`);
  const rest = line.slice(close + 2).split(" ");
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) {
    throw new Error(`no utime and stime in: ${JSON.stringify(line)}`);
  }
  return {
    tid: Number(line.slice(0, open)),
    comm: line.slice(open + 1, close),
    ticks: utime + stime,
  };
}

/** Thread names (numbers left out) and the group each is printed under. */
const GROUPS = new Map([
  ["worker", "Deno Workers (isolates)"],
  ["sw", "Deno KV (sw-N, one per open KV)"],
  ["tokio-runtime-w", "tokio runtime (I/O, timers)"],
  ["V8 DefaultWorke", "V8 platform (GC, compiling)"],
]);

/**
 * The group a thread's CPU is printed under: the main thread (the one whose
 * id is the process's), Deno Workers (`worker-N`, where the isolates run),
 * Deno KV's SQLite threads (`sw-N`), and the rest by name with their numbers
 * left out.
 */
export function threadGroup(stat: ThreadStat, pid: number): string {
  if (stat.tid === pid) return "main thread";
  const name = stat.comm.replace(/-\d+$/, "");
  return GROUPS.get(name) ?? name;
}

async function output(program: string, args: string[]): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command(program, {
    args,
    env: { LC_ALL: "C" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  if (!success) {
    throw new Error(`${program} ${args.join(" ")} failed: ${new TextDecoder().decode(stderr)}`);
  }
  return text;
}

/** Clock ticks a second, as `getconf CLK_TCK` says. */
export async function ticksPerSecond(): Promise<number> {
  const ticks = Number((await output("getconf", ["CLK_TCK"])).trim());
  if (!(ticks > 0)) throw new Error("getconf CLK_TCK answered no number");
  return ticks;
}

/** Every thread of process `pid` now, with the CPU it has used. */
export async function threadStats(pid = Deno.pid): Promise<ThreadStat[]> {
  const tids = (await output("ps", ["-L", "-p", String(pid), "-o", "tid="])).trim().split(/\s+/);
  // A thread may end between the two reads: cat says so on stderr and reads the rest.
  const { stdout } = await new Deno.Command("cat", {
    args: tids.map((tid) => `/proc/${pid}/task/${tid}/stat`),
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) => line.trim())
    .map(parseTaskStat);
}

/**
 * CPU per call by thread group between two readings, in ms: a thread that
 * appeared in between counts from zero, one that ended is left out.
 * Groups in the order of most CPU first.
 */
export function cpuPerCallByGroup(
  before: readonly ThreadStat[],
  after: readonly ThreadStat[],
  options: { pid: number; calls: number; ticksPerSecond: number },
): Map<string, number> {
  const earlier = new Map(before.map((stat) => [stat.tid, stat.ticks]));
  const groups = new Map<string, number>();
  for (const stat of after) {
    const used = stat.ticks - (earlier.get(stat.tid) ?? 0);
    const group = threadGroup(stat, options.pid);
    groups.set(group, (groups.get(group) ?? 0) + used);
  }
  const msPerTick = 1000 / options.ticksPerSecond;
  return new Map(
    [...groups].filter(([, ticks]) => ticks > 0).sort((a, b) => b[1] - a[1])
      .map(([group, ticks]) => [group, ticks * msPerTick / options.calls]),
  );
}

/**
 * CPU per call of the busiest thread every call passes through, in ms: the
 * threads other than Deno Workers (each caller's call runs in a worker of
 * its own), of which the main thread and a KV's SQLite thread are the ones
 * that count. One thread runs one call's share at a time, so calls cannot
 * pass through it faster than 1000 ÷ this a second, however many cores.
 */
export function busiestSharedThread(
  before: readonly ThreadStat[],
  after: readonly ThreadStat[],
  options: { pid: number; calls: number; ticksPerSecond: number },
): number {
  const earlier = new Map(before.map((stat) => [stat.tid, stat.ticks]));
  let most = 0;
  for (const stat of after) {
    if (threadGroup(stat, options.pid) === GROUPS.get("worker")) continue;
    most = Math.max(most, stat.ticks - (earlier.get(stat.tid) ?? 0));
  }
  return most * 1000 / options.ticksPerSecond / options.calls;
}

/**
 * The cores this process gets now: one permissionless worker per core spins
 * for `ms`, and the CPU the process used meanwhile ÷ the time is the answer.
 * On a machine whose other processes keep its cores busy, the scheduler
 * shares them out, and this process gets less than all of them.
 *
 * @param cores How many workers spin: the machine's cores.
 * @param ms How long they spin.
 */
export async function coresAvailable(cores: number, ms = 250): Promise<number> {
  const url = new URL("./_spin_worker.ts", import.meta.url);
  const workers = Array.from(
    { length: cores },
    () => new Worker(url, { type: "module", deno: { permissions: "none" } } as WorkerOptions),
  );
  const spin = (spinMs: number) =>
    Promise.all(workers.map((worker) =>
      new Promise((resolve, reject) => {
        worker.onmessage = resolve;
        worker.onerror = (event) => {
          event.preventDefault();
          reject(new Error(event.message));
        };
        worker.postMessage(spinMs);
      })
    ));
  try {
    await spin(1);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await spin(ms);
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    return Math.min(cores, (cpu.user + cpu.system) / 1000 / wall);
  } finally {
    for (const worker of workers) worker.terminate();
  }
}

/** What one caller's calls show, for {@linkcode concurrentBound}. */
export interface OneCaller {
  /** Wall time of one call, in ms. */
  msPerCall: number;
  /** CPU of one call over every thread of the process, in ms. */
  cpuMsPerCall: number;
  /** CPU of one call on the busiest thread all calls share ({@linkcode busiestSharedThread}), in ms. */
  sharedThreadMsPerCall?: number;
}

/**
 * The most calls a second `callers` concurrent callers can make with `cores`
 * cores: the cores give at most `cores ÷ CPU per call`; each caller still
 * waits out a call's time, so never more than `callers ÷ time per call`; and
 * a thread every call passes through runs one call's share at a time, so
 * never more than `1 ÷ its CPU per call`.
 */
export function concurrentBound(
  one: OneCaller,
  options: { cores: number; callers: number },
): number {
  const byCores = options.cores * 1000 / one.cpuMsPerCall;
  const byCallers = options.callers * 1000 / one.msPerCall;
  const byThread = one.sharedThreadMsPerCall ? 1000 / one.sharedThreadMsPerCall : Infinity;
  return Math.min(byCores, byCallers, byThread);
}
