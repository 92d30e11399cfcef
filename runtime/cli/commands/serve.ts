/**
 * `sync serve`: own the installation, serve the app and run the clock until
 * stopped, and run the commands the CLI sends meanwhile.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import type { Host } from "../../host/mod.ts";
import { join } from "node:path";
import {
  assertOwnerSocketFits,
  installationToken,
  ownerSocketPath,
  syncHome,
} from "../../projects/mod.ts";
import { Supervisor } from "../../supervisor/mod.ts";
import { type CommandOutput, type CommandRequest, serve, type ServedParts } from "../../web/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { ownForServing } from "../through_owner.ts";
import { withOwnedHost } from "../with_host.ts";

const OPTIONS = { port: { type: "string" } } as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "serve [--port <port>]",
  about: "Serve the app on 127.0.0.1 and run the clock; while it runs,\n" +
    "the other commands are run by it.",
}];

/** Runs a command the CLI sent, on the serve's host and with its parts; answers its exit code. */
export type SentCommandRunner = (
  request: CommandRequest,
  output: CommandOutput,
  host: Host,
  served: ServedParts,
) => Promise<number>;

/**
 * `sync serve [--port <port>]`; without `--port`, `SYNC_PORT`, else 4321.
 *
 * @param runSent Runs a command the CLI sends (the table of commands is the caller's).
 */
export function serveCommand(runSent: SentCommandRunner): Command {
  return {
    name: "serve",
    summary: SUMMARY,
    usage: `Usage:\n${formatSummaries(SUMMARY)}`,
    options: OPTIONS,
    run: ({ flags, io }: CommandContext<typeof OPTIONS>) => runServe(flags.port, io, runSent),
  };
}

async function runServe(
  portFlag: string | undefined,
  io: CommandContext["io"],
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
