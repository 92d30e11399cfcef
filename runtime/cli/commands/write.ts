/**
 * `sync write`: a person writes one record into a project's memory, as the
 * UI would — outside any handler call, committed at once, recorded as
 * written by `person`. A person may write any kind; packages write only
 * their own.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import { writeRecord } from "../../memory/mod.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { need, needProject } from "../need.ts";
import { withHost } from "../with_host.ts";

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
  run: runWrite,
  touchesInstallation: true,
};

async function runWrite(context: CommandContext<typeof OPTIONS>): Promise<number> {
  const { flags, io } = context;
  const dir = needProject(flags.project, context.cwd);
  const key = need(flags.key, "sync write needs --key <kind/name>, such as issues.issue/7");
  let fields: unknown;
  if (flags.fields !== undefined) {
    try {
      fields = JSON.parse(flags.fields);
    } catch {
      throw new InvalidInputError(`--fields takes a JSON object, such as '{"state":"open"}'`);
    }
  }
  return await withHost(context, async (host) => {
    const memory = await host.projectMemory(await resolveProjectDir(dir));
    const written = await writeRecord(memory, {
      key,
      ...(flags.title !== undefined ? { title: flags.title } : {}),
      ...(fields !== undefined ? { fields: fields as Record<string, never> } : {}),
      ...(flags.content !== undefined ? { content: flags.content } : {}),
    }, { now: () => new Date(host.now()) });
    io.out(JSON.stringify(written));
    return 0;
  });
}
