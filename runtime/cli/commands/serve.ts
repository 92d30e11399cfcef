/**
 * `sync serve`: serve the app and run the clock until stopped.
 *
 * @module
 */
import { serve } from "../../web/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { withHost } from "../with_host.ts";

const OPTIONS = { port: { type: "string" } } as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "serve [--port <port>]",
  about: "Serve the app on 127.0.0.1 and run the clock.",
}];

/** `sync serve [--port <port>]`; without `--port`, `SYNC_PORT`, else 4321. */
export const serveCommand: Command = {
  name: "serve",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  run: runServe,
};

async function runServe({ flags, io }: CommandContext<typeof OPTIONS>): Promise<number> {
  return await withHost(io, async (host) => {
    const port = flags.port ? Number(flags.port) : Number(Deno.env.get("SYNC_PORT") ?? 4321);
    await serve(host, { port, log: io.out, userHome: Deno.env.get("HOME") });
    return 0;
  });
}
