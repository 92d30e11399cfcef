/**
 * `sync serve`: own the installation, serve the app and run the clock until
 * stopped, and run the commands the CLI sends meanwhile.
 *
 * @module
 */
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import type { SentCommandRunner } from "./run_serve.ts";

const OPTIONS = { port: { type: "string" } } as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "serve [--port <port>]",
  about: "Serve the app on 127.0.0.1 and run the clock; while it runs,\n" +
    "the other commands are run by it.",
}];

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
    prepare({ flags }: CommandWords<typeof OPTIONS>): PreparedCommand {
      const port = flags.port;
      return async ({ io }) => (await import("./run_serve.ts")).runServe(port, io, runSent);
    },
  };
}
