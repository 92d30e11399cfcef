/**
 * `sync receipts`: what handler calls in a project left behind, newest first.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";
import type { ReceiptsRequest } from "./run_receipts.ts";

const OPTIONS = {
  project: { type: "string" },
  id: { type: "string" },
  limit: { type: "string" },
  json: { type: "boolean" },
} as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "receipts --project <dir> [--id <id>] [--limit <n>] [--json]",
  about: "What handler calls left behind, newest first.",
}];

/** `sync receipts --project <dir> [--id <id>] [--limit <n>] [--json]`. */
export const receiptsCommand: Command = {
  name: "receipts",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  touchesInstallation: true,
  prepare: prepareReceipts,
};

function prepareReceipts({ flags, cwd }: CommandWords<typeof OPTIONS>): PreparedCommand {
  const dir = needProject(flags.project, cwd);
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidInputError(
      `--limit must be a positive whole number, not ${JSON.stringify(flags.limit)}`,
    );
  }
  const request: ReceiptsRequest = { dir, id: flags.id, limit, json: flags.json };
  return async (context) => (await import("./run_receipts.ts")).runReceipts(request, context);
}
