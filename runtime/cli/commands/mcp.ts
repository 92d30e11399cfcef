/**
 * `sync mcp`: sync-mcp on stdio for one project, for any MCP client (Claude
 * Desktop, an editor, the MCP Inspector). It is a bridge to the `/mcp` of
 * the serve that owns the installation, started in the background when none
 * runs; the client is a person's agent and its calls are attributed so. The
 * bridge reaches the serve over its socket in the installation folder, never
 * on the app's port: the token and the project's path go only to a process
 * of this person's.
 *
 * @module
 */
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";

const OPTIONS = { project: { type: "string" } } as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "mcp --project <dir>",
  about: "Serve sync-mcp for the project on stdin and stdout, through the running\n" +
    "sync serve (started in the background when none runs).",
}];

/** `sync mcp --project <dir>`. */
export const mcpCommand: Command = {
  name: "mcp",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  prepare: prepareMcp,
};

function prepareMcp({ flags, cwd }: CommandWords<typeof OPTIONS>): PreparedCommand {
  // Resolved here: the serve has no working folder a relative path could mean.
  const project = needProject(flags.project, cwd);
  return async (context) => (await import("./run_mcp.ts")).runMcp(project, context);
}
