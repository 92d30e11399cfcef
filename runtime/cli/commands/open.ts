/**
 * `sync open`: open a project, as the app does when a person opens it.
 *
 * @module
 */
import { printable } from "../../internal/printable.ts";
import { openProject } from "../../lifecycle/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";
import { withHost } from "../with_host.ts";

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
  run: runOpen,
  touchesInstallation: true,
};

async function runOpen(context: CommandContext<typeof OPTIONS>): Promise<number> {
  const { flags, io } = context;
  const dir = needProject(flags.project, context.cwd);
  return await withHost(context, async (host) => {
    // The person's home folder is never a project; the app refuses it by the same rule.
    const result = await openProject(host, dir);
    const ids = result.project.extensionIds;
    io.out(
      `Opened ${result.project.path}: ${
        ids.length ? `${ids.length} installed (${ids.join(", ")})` : "nothing installed"
      }${result.scheduled ? "; on the clock's scheduled list" : ""}`,
    );
    for (const run of result.opened) {
      if (run.outcome === "ok") io.out(`  ${run.handler} (opened): ok`);
      else {
        io.err(
          `  ${run.handler} (opened) failed: ${printable(run.error!.message)}`,
        );
      }
    }
    for (const { packageId, message } of result.unavailable) {
      io.err(`  ${packageId} cannot serve here: ${printable(message)}`);
    }
    return 0;
  });
}
