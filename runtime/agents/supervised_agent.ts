/**
 * Agents started by the process supervisor: each agent's program in a
 * process group of its own, with an environment scrubbed of Sync's own
 * variables and the installation's token, held to the supervisor's limits,
 * written down so that a later start sweeps what a killed Sync left, and
 * stopped (SIGTERM, then SIGKILL) with everything it started.
 *
 * @module
 */
import type { SupervisedProcess, Supervisor } from "../supervisor/mod.ts";
import type { AgentPeer } from "./agent_peer.ts";
import type { AgentLauncher } from "./agent_launcher.ts";

/**
 * A launcher that starts agents with the supervisor.
 *
 * @param supervisor The serve's supervisor.
 * @returns What the work performer starts agents with.
 */
export function supervisedLauncher(supervisor: Supervisor): AgentLauncher {
  return async (command, { cwd, owner, onStderr }) => {
    const process = await supervisor.spawn(owner, {
      command: command.command,
      args: command.args,
      cwd,
      ...(command.env ? { env: command.env } : {}),
      ...(onStderr ? { onStderr } : {}),
    });
    return supervisedPeer(process);
  };
}

/**
 * A supervised process as an ACP session speaks to it.
 *
 * @param process The process the supervisor started.
 */
export function supervisedPeer(process: SupervisedProcess): AgentPeer {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    // Once its group has gone, its stderr tail is complete.
    exited: process.gone.then((exit) => ({ code: exit.code, signal: exit.signal })),
    stderrTail: () => process.stderrTail(),
    stop: async () => {
      await process.stop();
    },
  };
}
