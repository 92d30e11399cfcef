/**
 * `sync records`: a project's records, one JSON line each.
 *
 * @module
 */
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";
import type { RecordsRequest } from "./run_records.ts";

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
  touchesInstallation: true,
  prepare: prepareRecords,
};

function prepareRecords({ flags, cwd }: CommandWords<typeof OPTIONS>): PreparedCommand {
  const request: RecordsRequest = {
    dir: needProject(flags.project, cwd),
    kind: flags.kind,
    prefix: flags.prefix,
  };
  return async (context) => (await import("./run_records.ts")).runRecords(request, context);
}
