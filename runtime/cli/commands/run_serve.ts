/**
 * What `sync serve` does: takes the installation, opens a host over it and
 * serves the app, the clock and the owner's local API on it until stopped.
 *
 * @module
 */
import { join } from "node:path";
import { InvalidInputError } from "../../errors.ts";
import {
  assertOwnerSocketFits,
  installationToken,
  ownerSocketPath,
  syncHome,
} from "../../projects/mod.ts";
import { Supervisor } from "../../supervisor/mod.ts";
import type { Host } from "../../host/mod.ts";
import { type CommandOutput, type CommandRequest, serve, type ServedParts } from "../../web/mod.ts";
import type { CliIo } from "../io.ts";
import { ownForServing } from "../through_owner.ts";
import { withOwnedHost } from "../with_host.ts";

/** Runs a command the CLI sent, on the serve's host and with its parts; answers its exit code. */
export type SentCommandRunner = (
  request: CommandRequest,
  output: CommandOutput,
  host: Host,
  served: ServedParts,
) => Promise<number>;

/**
 * Runs `sync serve`: owns the installation, serves the app and runs the clock
 * until stopped, and runs the commands the CLI sends meanwhile.
 *
 * @param portFlag `--port` as typed, when given.
 * @param io Where it writes.
 * @param runSent Runs a command the CLI sends.
 * @returns The exit code.
 * @throws {InvalidInputError} when the port is not one.
 * @throws {ConflictError} when another serve owns the installation.
 */
export async function runServe(
  portFlag: string | undefined,
  io: CliIo,
  runSent: SentCommandRunner,
): Promise<number> {
  const fromEnv = Deno.env.get("SYNC_PORT");
  const port = portFlag !== undefined
    ? portNumber(portFlag, "--port")
    : fromEnv !== undefined
    ? portNumber(fromEnv, "SYNC_PORT")
    : 4321;
  const home = syncHome();
  // Before anything is made or printed: a serve its own CLI cannot reach is no serve.
  assertOwnerSocketFits(home);
  const ownership = await ownForServing(home, io);
  try {
    // The installation is let go only after its KV and memories are closed.
    return await withOwnedHost(home, io, async (host) => {
      // Programs are started only for this serve; the token is never passed on to them.
      const token = await installationToken(home);
      const supervisor = new Supervisor({
        recordFolder: join(home, "processes"),
        secrets: [token],
      });
      await serve(host, {
        port,
        supervisor,
        log: io.out,
        ownership,
        socket: ownerSocketPath(home),
        commands: (request, output, served) => runSent(request, output, host, served),
      });
      return 0;
    });
  } finally {
    await ownership.release();
  }
}

/**
 * A port as typed: a whole number from 0 to 65535 (0 asks the system for
 * any free one).
 *
 * @throws {InvalidInputError} naming where the value came from.
 */
function portNumber(text: string, from: string): number {
  const port = /^\d{1,5}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(port <= 65535)) {
    throw new InvalidInputError(
      `${from} must be a port: a whole number from 1 to 65535 (or 0 for any free one), ` +
        `not ${JSON.stringify(text)}`,
    );
  }
  return port;
}
