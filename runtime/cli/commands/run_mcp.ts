/**
 * What `sync mcp` does: sync-mcp on stdio for one project, bridged to the
 * `/mcp` of the serve that owns the installation, over its socket.
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
import type { CommandContext } from "../command.ts";
import { serveOwner } from "../serve_in_background.ts";

/**
 * Runs `sync mcp`: bridges stdio to the owner's `/mcp` for the project until
 * the client goes.
 *
 * @param project The project's folder, resolved from where the person typed the command.
 * @param context Where it writes (stderr only: stdout is the protocol's), and the folder a
 *   relative path starts from.
 * @returns The exit code.
 */
export async function runMcp(project: string, context: CommandContext): Promise<number> {
  const { io } = context;
  // A folder the app would not open is refused here, in its words, before a
  // serve is started for it; the serve asks again (writing included: this
  // process may not write) when the session opens.
  const openable = await openableFolder(project, {
    probeWrite: false,
  });
  const home = syncHome();
  // The owner now, and again whenever the bridge's session there is lost
  // (the serve restarted, or the session idled out): started when none runs.
  // Each session has its own client of the socket, let go of with it.
  const target = async () => {
    const owner = await serveOwner(home, io, "mcp");
    const url = new URL(`${OWNER_SOCKET_ORIGIN}/mcp`);
    url.searchParams.set("project", openable);
    const token = await readInstallationToken(home);
    const socket = await ownerSocketClient(home);
    return { url, token, name: `the serve (pid ${owner.pid})`, socket };
  };
  await bridgeStdio({ ...await target(), reconnect: target, log: io.err });
  return 0;
}
