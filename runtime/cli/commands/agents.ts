/**
 * `sync agents`: the agents work and Chat can raise — list them, add (or
 * replace) a person's definition, remove one. Presets are definitions Sync
 * knows and never installs; a person's definition with a preset's name
 * replaces it, and removing that brings the preset back; removing a preset
 * removes the keys kept beside it (a sign-in's, saved from Chat).
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import { WordsError } from "../parse_words.ts";
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import type { AgentsRequest } from "./run_agents.ts";

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
  touchesInstallation: true,
  prepare: prepareAgents,
};

function prepareAgents({ args, flags }: CommandWords<typeof OPTIONS>): PreparedCommand {
  const [verb, name, ...rest] = args;
  if (rest.length > 0 || (verb !== undefined && verb !== "add" && verb !== "remove")) {
    throw new WordsError(`takes: list (no words), add <name>, remove <name>`);
  }
  if (verb !== "add" && (flags.command !== undefined || flags.arg || flags.env)) {
    throw new WordsError(`--command, --arg and --env go with sync agents add <name>`);
  }
  if (verb !== undefined && !name) {
    throw new WordsError(`${verb} needs the agent's name`);
  }
  const request: AgentsRequest = {
    verb,
    name,
    ...(verb === "add"
      ? {
        given: {
          command: flags.command,
          args: flags.arg ?? [],
          env: Object.fromEntries((flags.env ?? []).map(envPair)),
        },
      }
      : {}),
  };
  return async (context) => (await import("./run_agents.ts")).runAgents(request, context);
}

function envPair(pair: string): [string, string] {
  const at = pair.indexOf("=");
  if (at <= 0) {
    throw new InvalidInputError(`--env takes NAME=value; got ${JSON.stringify(pair)}`);
  }
  return [pair.slice(0, at), pair.slice(at + 1)];
}
