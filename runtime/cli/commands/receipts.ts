/**
 * `sync receipts`: what handler calls in a project left behind, newest first.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import { printable } from "../../internal/printable.ts";
import { knownProjectPath } from "../../clock/mod.ts";
import { listReceipts } from "../../host/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";
import { withHost } from "../with_host.ts";

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
  run: runReceipts,
  touchesInstallation: true,
};

async function runReceipts(context: CommandContext<typeof OPTIONS>): Promise<number> {
  const { flags, io } = context;
  const dir = needProject(flags.project, context.cwd);
  // Checked before the installation is reached: a wrong word needs nothing of it.
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidInputError(
      `--limit must be a positive whole number, not ${JSON.stringify(flags.limit)}`,
    );
  }
  return await withHost(context, async (host) => {
    // A project whose folder is gone still has receipts to read.
    const project = await knownProjectPath(host.kv, dir);
    const receipts = await listReceipts(host.kv, project, { packageId: flags.id, limit });
    for (const r of receipts) {
      if (flags.json) {
        io.out(JSON.stringify(r));
        continue;
      }
      const ms = Date.parse(r.endedAt) - Date.parse(r.startedAt);
      // A person's own `sync call` is said as the command they typed; the
      // handler was told `extension`, which --json keeps.
      const occasion = r.source?.kind === "person" && r.source.via === "cli"
        ? "sync call"
        : r.occasion.moment
        ? `${r.occasion.kind}:${r.occasion.moment}`
        : r.occasion.kind;
      // A handler's name starts with its package's id; where it does not (a call that
      // named a package and a handler of another), the package is said too.
      const what = r.handler === ""
        ? `${printable(r.packageId)} (every handler)`
        : r.handler.startsWith(`${r.packageId}.`)
        ? printable(r.handler)
        : `${printable(r.packageId)}: ${printable(r.handler)}`;
      io.out(
        `${r.startedAt}  ${r.outcome.padEnd(7)} ${what} ` +
          `(${printable(occasion)}, ${ms} ms)` +
          (r.error ? `  ${printable(r.error.message)}` : ""),
      );
    }
    // With --json every line is a receipt: none is no line.
    if (receipts.length === 0 && !flags.json) io.out("No receipts yet.");
    return 0;
  });
}
