/**
 * `sync open`: open a project, as the app does when a person opens it.
 *
 * @module
 */
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";

const OPTIONS = { project: { type: "string" } } as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "open --project <dir>",
  about: "Open a project: remember what it declares, put it on the\n" +
    "clock's list if it has a schedule, run opened handlers.",
}];

/** `sync open --project <dir>`. */
export const openCommand: Command = {
  name: "open",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  touchesInstallation: true,
  prepare: prepareOpen,
};

function prepareOpen({ flags, cwd }: CommandWords<typeof OPTIONS>): PreparedCommand {
  const dir = needProject(flags.project, cwd);
  return async (context) => (await import("./run_open.ts")).runOpen(dir, context);
}
