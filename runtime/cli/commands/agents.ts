/**
 * `sync agents`: the agents work and Chat can raise — list them, add (or
 * replace) a person's definition, remove one. Presets are definitions Sync
 * knows and never installs; a person's definition with a preset's name
 * replaces it, and removing that brings the preset back; removing a preset
 * removes the keys kept beside it (a sign-in's, saved from Chat).
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
import { ConflictError, InvalidInputError } from "../../errors.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { withHost } from "../with_host.ts";

const OPTIONS = {
  command: { type: "string" },
  arg: { type: "string", multiple: true },
  env: { type: "string", multiple: true },
} as const;

const SUMMARY: readonly CommandSummary[] = [
  {
    synopsis: "agents",
    about: "The agents work and Chat can raise: presets, the demo agent, yours.",
  },
  {
    synopsis: "agents add <name> --command <program> [--arg <a>]... [--env K=V]...",
    about: "Adds an agent, or replaces the one of that name (a preset's too).",
  },
  {
    synopsis: "agents remove <name>",
    about: "Removes an agent you added (a preset it replaced comes back), " +
      "or the keys kept beside a preset.",
  },
];

/** `sync agents [add <name> --command <program> … | remove <name>]`. */
export const agentsCommand: Command = {
  name: "agents",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  run: runAgents,
  touchesInstallation: true,
};

async function runAgents(context: CommandContext<typeof OPTIONS>): Promise<number> {
  const { args, flags, io } = context;
  const [verb, name, ...rest] = args;
  if (rest.length > 0 || (verb !== undefined && verb !== "add" && verb !== "remove")) {
    throw new InvalidInputError(`sync agents takes: list (no words), add <name>, remove <name>`);
  }
  if (verb !== "add" && (flags.command !== undefined || flags.arg || flags.env)) {
    throw new InvalidInputError(`--command, --arg and --env go with sync agents add <name>`);
  }
  if (verb !== undefined && !name) {
    throw new InvalidInputError(`sync agents ${verb} needs the agent's name`);
  }
  // Checked before the installation is reached: a command writes nothing before withHost.
  const definition = verb === "add"
    ? parseAgentDefinition({
      name,
      command: flags.command,
      args: flags.arg ?? [],
      env: Object.fromEntries((flags.env ?? []).map(envPair)),
    })
    : null;
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

function envPair(pair: string): [string, string] {
  const at = pair.indexOf("=");
  if (at <= 0) {
    throw new InvalidInputError(`--env takes NAME=value; got ${JSON.stringify(pair)}`);
  }
  return [pair.slice(0, at), pair.slice(at + 1)];
}
