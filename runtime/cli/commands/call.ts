/**
 * `sync call`: call a handler as a person, and print its JSON answer. Its
 * receipt says the person called it from the command line.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { need, needProject } from "../need.ts";
import type { CallRequest } from "./run_call.ts";

const OPTIONS = {
  project: { type: "string" },
  payload: { type: "string" },
} as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "call <id> <handler> --project <dir> [--payload <json>]",
  about: "Call a handler; prints its JSON answer.",
}];

/** `sync call <id> <handler> --project <dir> [--payload <json>]`. */
export const callCommand: Command = {
  name: "call",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  touchesInstallation: true,
  prepare: prepareCall,
};

function prepareCall({ args, flags, cwd }: CommandWords<typeof OPTIONS>): PreparedCommand {
  const id = need(args[0], "needs a package id and a handler");
  const handler = need(args[1], "needs a handler name after the package id");
  let payload: unknown = null;
  if (flags.payload !== undefined) {
    try {
      payload = JSON.parse(flags.payload);
    } catch (error) {
      throw new InvalidInputError(`--payload is not JSON: ${(error as Error).message}`);
    }
  }
  const request: CallRequest = { id, handler, payload, project: needProject(flags.project, cwd) };
  return async (context) => (await import("./run_call.ts")).runCall(request, context);
}
