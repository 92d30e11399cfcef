/**
 * One run of a command, timed from spawn to exit (or to its first answer),
 * with the most memory it held (max RSS).
 *
 * The peak is read by `/usr/bin/time -f %M` (Debian's `time` package), which
 * the command runs under: it learns the child's max RSS from `wait4` as the
 * child ends, so no peak is missed. Deno has no way to ask that of a child
 * itself (`Deno.Command` reaps it and keeps no resource usage), and polling
 * `/proc/<pid>/status` for `VmHWM` misses whatever the child grows in its last
 * moments and finds nothing once it has exited. `time` adds one fork and exec
 * to every command alike, the floor's too.
 *
 * @module
 */

/** Where `time` is expected. */
export const TIME_PATH = "/usr/bin/time";

/** What one run took. */
export interface MeasuredRun {
  /** Wall time from spawn to exit, or to the first answer when one was waited for, in ms. */
  ms: number;
  /** The most memory the process held (max RSS), in MB (10⁶ bytes). */
  peakMb: number;
}

/** Options for {@linkcode measureRun}. */
export interface MeasureRunOptions {
  /** The folder it runs in. */
  cwd: string | URL;
  /** Variables set for it, over this process's environment. */
  env: Record<string, string>;
  /**
   * Written on its stdin, then the run is timed to the first stdout line
   * `answered` accepts, and stdin is closed so that it ends. Without it,
   * stdin is empty and the run is timed to its exit.
   */
  ask?: { request: string; answered: (line: string) => boolean };
  /** The most it may take before it is told to end (stdin closed) and the run fails, in ms. */
  timeoutMs?: number;
}

/** True when `time` is there to read a child's peak memory. */
export async function canMeasurePeak(): Promise<boolean> {
  try {
    return (await Deno.stat(TIME_PATH)).isFile;
  } catch {
    return false;
  }
}

/**
 * Reads what `time -f %M -o <file>` wrote: the max RSS in KB (1024 bytes).
 * A child killed by a signal makes `time` write a "Command terminated" line
 * first; the number is the last line.
 *
 * @returns The peak in MB (10⁶ bytes).
 * @throws {Error} when there is no number to read.
 */
export function parsePeakMb(text: string): number {
  const last = text.trim().split("\n").pop()?.trim() ?? "";
  if (!/^\d+$/.test(last)) throw new Error(`time wrote no max RSS: ${JSON.stringify(text)}`);
  return Number(last) * 1024 / 1e6;
}

/**
 * Runs `program args` under `time` and answers its wall time and peak memory.
 *
 * @throws {Error} when it exits other than 0, or gives no answer in time.
 */
export async function measureRun(
  program: string,
  args: readonly string[],
  options: MeasureRunOptions,
): Promise<MeasuredRun> {
  const peakFile = await Deno.makeTempFile({ prefix: "sync-bench-peak-" });
  try {
    const command = new Deno.Command(TIME_PATH, {
      args: ["-f", "%M", "-o", peakFile, program, ...args],
      cwd: options.cwd,
      env: options.env,
      stdin: options.ask ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
    });
    const started = performance.now();
    const child = command.spawn();
    const stderr = new Response(child.stderr).text();
    let ms: number | undefined;
    let stdout: string;
    if (options.ask) {
      ({ ms, stdout } = await firstAnswer(
        child,
        started,
        options.ask,
        options.timeoutMs ?? 30_000,
      ));
    } else {
      stdout = await new Response(child.stdout).text();
      await child.status;
      ms = performance.now() - started;
    }
    const status = await child.status;
    const typed = [program, ...args].join(" ");
    if (!status.success) {
      throw new Error(`${typed} exited ${status.code}:\n${stdout}\n${await stderr}`);
    }
    if (ms === undefined) throw new Error(`${typed} gave no answer:\n${stdout}\n${await stderr}`);
    await stderr;
    return { ms, peakMb: parsePeakMb(await Deno.readTextFile(peakFile)) };
  } finally {
    await Deno.remove(peakFile);
  }
}

/**
 * Writes `ask.request` and times `child` to the first line of stdout
 * `ask.answered` accepts (no time when none did), reading stdout to its end.
 */
async function firstAnswer(
  child: Deno.ChildProcess,
  started: number,
  ask: NonNullable<MeasureRunOptions["ask"]>,
  timeoutMs: number,
): Promise<{ ms?: number; stdout: string }> {
  const stdin = child.stdin.getWriter();
  await stdin.write(new TextEncoder().encode(ask.request + "\n"));
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    stdin.close().catch(() => {});
  };
  // A process that never answers is told to end as a client would: its stdin closed.
  const timer = setTimeout(close, timeoutMs);
  let stdout = "";
  let ms: number | undefined;
  try {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      stdout += chunk;
      if (ms === undefined && stdout.split("\n").slice(0, -1).some(ask.answered)) {
        ms = performance.now() - started;
        close();
      }
    }
  } finally {
    clearTimeout(timer);
    close();
  }
  return { ms, stdout };
}
