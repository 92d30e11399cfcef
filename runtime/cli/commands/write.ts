/**
 * `sync write`: a person writes one record into a project's memory, as the
 * UI would — outside any handler call, committed at once, recorded as
 * written by `person`. A person may write any kind; packages write only
 * their own.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { need, needProject } from "../need.ts";
import type { WriteRequest } from "./run_write.ts";

const OPTIONS = {
  project: { type: "string" },
  key: { type: "string" },
  title: { type: "string" },
  fields: { type: "string" },
  content: { type: "string" },
} as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis:
    "write --project <dir> --key <kind/name> [--title <t>] [--fields <json>] [--content <text>]",
  about: "Writes one record into the project's memory, as a person.",
}];

/** `sync write --project <dir> --key <kind/name> …`. */
export const writeCommand: Command = {
  name: "write",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  touchesInstallation: true,
  prepare: prepareWrite,
};

function prepareWrite({ flags, cwd }: CommandWords<typeof OPTIONS>): PreparedCommand {
  const dir = needProject(flags.project, cwd);
  const key = need(flags.key, "needs --key <kind/name>, such as issues.issue/7");
  let fields: unknown;
  if (flags.fields !== undefined) {
    try {
      fields = JSON.parse(flags.fields);
    } catch {
      throw new InvalidInputError(`--fields takes a JSON object, such as '{"state":"open"}'`);
    }
  }
  const request: WriteRequest = {
    dir,
    key,
    title: flags.title,
    fields,
    content: flags.content,
  };
  return async (context) => (await import("./run_write.ts")).runWrite(request, context);
}
