/**
 * What the system says of its processes, read with `ps`: which group each
 * is in, whether it is a zombie, and when it started.
 *
 * Deno lets a program read `/proc/<pid>/stat` only with every permission
 * granted, so the supervisor asks `ps` (procps on Linux, part of macOS)
 * instead; it is run with `LC_ALL=C` and `TZ=UTC` so that a start time
 * written down by one Sync reads the same to the next.
 *
 * @module
 */
import { ProcessStartError } from "../errors.ts";

/** One process as `ps` lists it. */
export interface ProcessRow {
  /** Its process id. */
  pid: number;
  /** The process group it is in. */
  pgid: number;
  /**
   * True when it has exited and waits for its parent to collect it: it
   * holds no resources and cannot be signalled, so it counts as gone.
   */
  zombie: boolean;
  /**
   * When it started, as `ps` writes it (`Mon Nov 30 18:45:24 2026`, UTC):
   * with the pid, it tells the process apart from a later one given the same
   * pid.
   */
  started: string;
}

/**
 * Every process of the system, or the ones with the pids given.
 *
 * @param pids Only these (an empty list answers none, without asking `ps`).
 * @throws {ProcessStartError} when `ps` is not on PATH.
 */
export async function processTable(pids?: readonly number[]): Promise<ProcessRow[]> {
  if (pids && pids.length === 0) return [];
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command("ps", {
      args: [
        ...(pids ? ["-p", pids.join(",")] : ["-A"]),
        "-o",
        "pid=,pgid=,stat=,lstart=",
      ],
      env: { LC_ALL: "C", TZ: "UTC" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ProcessStartError(
        "Cannot look after the processes Sync starts: the program ps is not on PATH. " +
          "Install it (on Debian and Ubuntu: apt-get install procps)",
      );
    }
    throw error;
  }
  // ps exits 1 when none of the pids asked for exists; its listing is still the answer.
  return parseProcessRows(new TextDecoder().decode(output.stdout));
}

/**
 * Reads the lines of `ps -o pid=,pgid=,stat=,lstart=`; lines it cannot read are left out.
 *
 * @param text What `ps` wrote.
 */
export function parseProcessRows(text: string): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const line of text.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
    if (!match) continue;
    rows.push({
      pid: Number(match[1]),
      pgid: Number(match[2]),
      zombie: match[3].startsWith("Z"),
      started: match[4].replace(/\s+/g, " "),
    });
  }
  return rows;
}

/**
 * True while a process of group `pgid` is alive (zombies do not count).
 *
 * @param pgid The process group.
 */
export async function groupAlive(pgid: number): Promise<boolean> {
  return (await processTable()).some((row) => row.pgid === pgid && !row.zombie);
}
