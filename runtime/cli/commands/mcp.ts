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
import { bridgeStdio } from "../../mcp_bridge/mod.ts";
import {
  openableFolder,
  OWNER_SOCKET_ORIGIN,
  ownerSocketClient,
  readInstallationToken,
  syncHome,
} from "../../projects/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";
import { serveOwner } from "../serve_in_background.ts";

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
  run: runMcp,
};

async function runMcp(context: CommandContext<typeof OPTIONS>): Promise<number> {
  const { flags, io } = context;
  // Resolved here: the serve has no working folder a relative path could mean.
  // A folder the app would not open is refused here, in its words, before a
  // serve is started for it; the serve asks again (writing included: this
  // process may not write) when the session opens.
  const project = await openableFolder(needProject(flags.project, context.cwd), {
    probeWrite: false,
  });
  const home = syncHome();
  // The owner now, and again whenever the bridge's session there is lost
  // (the serve restarted, or the session idled out): started when none runs.
  // Each session has its own client of the socket, let go of with it.
  const target = async () => {
    const owner = await serveOwner(home, io, "mcp");
    const url = new URL(`${OWNER_SOCKET_ORIGIN}/mcp`);
    url.searchParams.set("project", project);
    const token = await readInstallationToken(home);
    const socket = await ownerSocketClient(home);
    return { url, token, name: `the serve (pid ${owner.pid})`, socket };
  };
  await bridgeStdio({ ...await target(), reconnect: target, log: io.err });
  return 0;
}
