/**
 * What the tests of processes share: asking the system whether a process is
 * still there, and reading output whole.
 *
 * @module
 */
import { processTable } from "../../runtime/supervisor/process_table.ts";

/** True while `pid` is a live process (a zombie is not). */
export async function isAlive(pid: number): Promise<boolean> {
  const [row] = await processTable([pid]);
  return row !== undefined && !row.zombie;
}

/**
 * Waits until none of `pids` is alive; false if some still are after `ms`
 * (generous: the machine may be busy).
 */
export async function allGone(pids: readonly number[], ms = 15_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (true) {
    const alive = await Promise.all(pids.map(isAlive));
    if (!alive.includes(true)) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Reads a stream of text to its end. */
export async function readAll(text: ReadableStream<string>): Promise<string> {
  let all = "";
  for await (const chunk of text) all += chunk;
  return all;
}
