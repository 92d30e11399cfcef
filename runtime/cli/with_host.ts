/**
 * The installation a command works in, in its owner (see `through_owner.ts`,
 * which `runCli` decides before it loads the command's implementation): the
 * serve's host when the serve runs the command; else this process owns the
 * installation for the command's length, and opens `SYNC_HOME`'s KV and a
 * host over it, and closes both after it, whatever happens.
 *
 * A command writes nothing before it calls {@linkcode withHost}: sent to a
 * serve, it runs there again from its first word.
 *
 * @module
 */
import { Host } from "../host/mod.ts";
import { openInstallation } from "../projects/mod.ts";
import type { CommandContext } from "./command.ts";
import type { CliIo } from "./io.ts";
import { definedAgents, sessionWorkState } from "./installation_work.ts";

/**
 * Runs `use` on the host of the installation, in its owner. Handlers'
 * console lines go to the command's stderr, so that stdout holds only the
 * command's answer.
 *
 * @param context The command's context: its `io`, and how it reaches the installation.
 * @param use What the command does with the host (its KV is `host.kv`); answers the exit code.
 * @returns The command's exit code.
 */
export async function withHost(
  context: Pick<CommandContext, "io" | "installation">,
  use: (host: Host) => Promise<number>,
): Promise<number> {
  const access = context.installation;
  if (!access) {
    // A command's own mistake: it reached for the installation without saying it touches it.
    throw new Error("withHost() is for commands that touch the installation");
  }
  if (access.kind === "served") return await use(access.host);
  return await withOwnedHost(access.home, context.io, use);
}

/**
 * Opens the installation this process owns, leaves the receipts of calls
 * whose process was killed mid-call, runs `use` on a host over it, and
 * closes both, whatever happens.
 *
 * @param home The installation folder.
 * @param io Where handlers' console lines go (its `err`).
 * @param use What to do with the host.
 */
export async function withOwnedHost<T>(
  home: string,
  io: CliIo,
  use: (host: Host) => Promise<T>,
): Promise<T> {
  let kv: Deno.Kv | undefined;
  let host: Host | undefined;
  try {
    kv = await openInstallation(home);
    const installation = kv;
    host = new Host({
      kv,
      home,
      log: io.err,
      workState: sessionWorkState(installation),
      agents: definedAgents(installation),
    });
    // Calls of processes that were killed mid-call get their receipts before anything else runs.
    await host.recordInterruptedCalls();
    return await use(host);
  } finally {
    await host?.close();
    kv?.close();
  }
}
