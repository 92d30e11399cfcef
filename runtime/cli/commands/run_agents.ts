/**
 * What `sync agents` does, in the installation's owner: lists the agents,
 * adds (or replaces) a person's definition, or removes one.
 *
 * @module
 */
import {
  addAgent,
  type AgentRemoval,
  listAgents,
  parseAgentDefinition,
  removeAgent,
} from "../../agents/mod.ts";
import { exitCodeOf } from "../../error_status.ts";
import { ConflictError } from "../../errors.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/** What `sync agents` was asked, read from its words. */
export interface AgentsRequest {
  /** `add` or `remove`; absent for the list. */
  verb?: "add" | "remove";
  /** The agent's name, with a verb. */
  name: string;
  /** What `add` defines: the program, its arguments and its environment, as given. */
  given?: { command?: string; args: string[]; env: Record<string, string> };
}

/**
 * Runs `sync agents`.
 *
 * @param request What was asked.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runAgents(
  { verb, name, given }: AgentsRequest,
  context: CommandContext,
): Promise<number> {
  const { io } = context;
  // Checked before the installation is reached: a command writes nothing before withHost.
  const definition = given ? parseAgentDefinition({ name, ...given }) : null;
  return await withHost(context, async (host) => {
    if (definition) {
      const added = await addAgent(host.kv, definition);
      io.out(`Added ${added.name}: ${[added.command, ...added.args].join(" ")}`);
      return 0;
    }
    if (verb === "remove") {
      let removed: AgentRemoval;
      try {
        removed = await removeAgent(host.kv, name);
      } catch (error) {
        // Nothing to remove is an answer in words, not a failure to name by its class.
        if (!(error instanceof ConflictError)) throw error;
        io.err(`sync agents: ${error.message}`);
        return exitCodeOf(error);
      }
      const { back, envNames } = removed;
      io.out(
        envNames.length > 0
          ? `Removed ${envNames.join(", ")} kept beside the ${name} preset; it stays the preset`
          : back
          ? `Removed your ${name}; the ${back.origin} ${name} is back: ` +
            [back.command, ...back.args].join(" ")
          : `Removed ${name}`,
      );
      return 0;
    }
    for (const agent of await listAgents(host.kv)) {
      const env = Object.keys(agent.env);
      io.out(
        `${agent.name}\t${agent.origin}\t${[agent.command, ...agent.args].join(" ")}` +
          (env.length ? `\t(env: ${env.join(", ")})` : "") + `\n  ${agent.about}`,
      );
    }
    return 0;
  });
}
