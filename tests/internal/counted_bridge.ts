/**
 * Test program: the stdio bridge `sync mcp` runs, on this process's real
 * stdin and stdout, to the serve that already owns `SYNC_HOME`, which says
 * on stderr, as its last line, the most messages it had at the serve at once
 * and the most it kept waiting (`{"maxInFlight":…,"maxWaiting":…}`).
 *
 * Run: `deno run --allow-read --allow-write --allow-net --allow-env tests/internal/counted_bridge.ts <project>`.
 *
 * @module
 */
import { bridgeStdio } from "../../runtime/mcp_bridge/mod.ts";
import {
  OWNER_SOCKET_ORIGIN,
  ownerSocketClient,
  readInstallationToken,
} from "../../runtime/projects/mod.ts";

const home = Deno.env.get("SYNC_HOME")!;
const url = new URL(`${OWNER_SOCKET_ORIGIN}/mcp`);
url.searchParams.set("project", Deno.args[0]);
let maxInFlight = 0;
let maxWaiting = 0;
await bridgeStdio({
  url,
  token: await readInstallationToken(home),
  name: "the serve",
  socket: await ownerSocketClient(home),
  log: (line) => console.error(line),
  observe: ({ inFlight, waiting }) => {
    maxInFlight = Math.max(maxInFlight, inFlight);
    maxWaiting = Math.max(maxWaiting, waiting);
  },
});
console.error(JSON.stringify({ maxInFlight, maxWaiting }));
