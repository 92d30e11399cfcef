/**
 * How to start the bundled demo agent: Deno running `demo/demo_agent.ts`,
 * allowed to reach the loopback address and nothing else — where `serve`
 * offers it sync-mcp (`http://127.0.0.1:<port>/mcp`). Whatever port the
 * serve took, the host is that one, so the agent needs no other permission.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { AgentCommand } from "./spawn_agent.ts";

/**
 * The command that starts the demo agent, with the words it is to obey on
 * every turn (such as `hang` or `no-init`; see `demo/demo_agent.ts`).
 *
 * @param flags Words given as `--word` flags; `needs-key=NAME` also lets it read the
 *   variable `NAME`, and `session-gate=PATH` the file `PATH`.
 * @returns The program (this Deno) and its arguments.
 */
export function demoAgentCommand(flags: readonly string[] = []): AgentCommand {
  const script = fileURLToPath(new URL("./demo/demo_agent.ts", import.meta.url));
  // `needs-key=NAME` is the one flag that needs more: reading that variable.
  const key = flags.find((flag) => flag.startsWith("needs-key="))?.slice("needs-key=".length);
  // And `session-gate=PATH`: reading that file.
  const gate = flags.find((flag) => flag.startsWith("session-gate="))
    ?.slice("session-gate=".length);
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--allow-net=127.0.0.1",
      ...(key ? [`--allow-env=${key}`] : []),
      ...(gate ? [`--allow-read=${gate}`] : []),
      script,
      ...flags.map((flag) => `--${flag}`),
    ],
  };
}
