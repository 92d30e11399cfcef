/**
 * `sync records`: a project's records, one JSON line each.
 *
 * @module
 */
import { listRecords } from "../../memory/mod.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";
import { withHost } from "../with_host.ts";

const OPTIONS = {
  project: { type: "string" },
  kind: { type: "string" },
  prefix: { type: "string" },
} as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "records --project <dir> [--kind <kind>] [--prefix <prefix>]",
  about: "The project's records, one JSON line each.",
}];

/** `sync records --project <dir> [--kind <kind>] [--prefix <prefix>]`. */
export const recordsCommand: Command = {
  name: "records",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  run: runRecords,
  touchesInstallation: true,
};

async function runRecords(context: CommandContext<typeof OPTIONS>): Promise<number> {
  const { flags, io } = context;
  const dir = needProject(flags.project, context.cwd);
  return await withHost(context, async (host) => {
    const memory = await host.projectMemory(await resolveProjectDir(dir));
    // Page by page, so a large memory prints as it is read.
    let cursor: string | undefined;
    do {
      const page = await listRecords(memory, {
        kind: flags.kind,
        prefix: flags.prefix,
        limit: 500,
        cursor,
      });
      for (const record of page.records) io.out(JSON.stringify(record));
      cursor = page.cursor;
    } while (cursor);
    return 0;
  });
}
