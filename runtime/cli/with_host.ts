/**
 * The installation a command works in: `SYNC_HOME`'s KV and a host over it,
 * opened for one command and closed after it, whatever happens.
 *
 * @module
 */
import { Host } from "../host/mod.ts";
import { openInstallation, syncHome } from "../projects/mod.ts";
import type { CliIo } from "./io.ts";

/**
 * Opens the installation `SYNC_HOME` names and a host over it, leaves the
 * receipts of calls whose process was killed mid-call, runs `use` with it,
 * then closes both. Handlers' console lines go to stderr, so that
 * stdout holds only the command's answer.
 *
 * @param io Where handlers' console lines go (its `err`).
 * @param use What the command does with the host (its KV is `host.kv`).
 * @returns What `use` answers.
 */
export async function withHost<T>(io: CliIo, use: (host: Host) => Promise<T>): Promise<T> {
  const home = syncHome();
  let kv: Deno.Kv | undefined;
  let host: Host | undefined;
  try {
    kv = await openInstallation(home);
    host = new Host({ kv, home, log: io.err });
    // Calls of processes that were killed mid-call get their receipts before anything else runs.
    await host.recordInterruptedCalls();
    return await use(host);
  } finally {
    await host?.close();
    kv?.close();
  }
}
