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

/** What one caller's calls show, for {@linkcode concurrentBound}. */
export interface OneCaller {
  /** Wall time of one call, in ms. */
  msPerCall: number;
  /** CPU of one call over every thread of the process, in ms. */
  cpuMsPerCall: number;
}

/**
 * The most calls a second `callers` concurrent callers can make on `cores`
 * cores: the cores give at most `cores ÷ CPU per call`, and each caller still
 * waits out a call's time, so never more than `callers ÷ time per call`.
 */
export function concurrentBound(
  one: OneCaller,
  options: { cores: number; callers: number },
): number {
  const byCores = options.cores * 1000 / one.cpuMsPerCall;
  const byCallers = options.callers * 1000 / one.msPerCall;
  return Math.min(byCores, byCallers);
}
