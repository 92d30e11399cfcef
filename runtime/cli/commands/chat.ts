/**
 * `sync chat`: what Chat shows of a project, on the command line — every
 * agent session, whoever began it, grouped as Chat groups them (a person's
 * conversations first, then one group per ordering extension), each row
 * followed by what waits on a person, who began it and on what occasion,
 * and what it is about (archived ones last, under Archived) — and
 * `sync chat keep <key>`, which keeps one as a `chat.conversation` record;
 * `archive <key>` and `restore <key>`, which list one apart or back; and
 * `delete <key>`, which deletes one from the installation (a kept record
 * stays in the project).
 *
 * While `sync serve` runs, keep, archive, restore and delete are run there,
 * by the serve's own performer of conversations, as the window's Chat runs
 * them: a conversation whose agent is kept for its next turn has it stopped
 * first, a running one is refused, and an open window is told. With no
 * serve, nothing is live, and they change the installation's storage here.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";
import type { ChatRequest } from "./run_chat.ts";

const OPTIONS = { project: { type: "string" } } as const;

const SUMMARY: readonly CommandSummary[] = [
  {
    synopsis: "chat --project <dir>",
    about: "The project's agent sessions, grouped as Chat shows them.",
  },
  {
    synopsis: "chat keep <key> --project <dir>",
    about: "Keeps a session as a chat.conversation record in the project's memory.",
  },
  {
    synopsis: "chat archive <key> --project <dir>",
    about: "Archives a session that has stopped: Chat lists it apart, under Archived.",
  },
  {
    synopsis: "chat restore <key> --project <dir>",
    about: "Brings an archived session back to Chat's list.",
  },
  {
    synopsis: "chat delete <key> --project <dir>",
    about: "Deletes a session that has stopped, and its transcript; a kept record stays.",
  },
];

const VERBS = new Set(["keep", "archive", "restore", "delete"]);

/** `sync chat --project <dir>`, and `keep`, `archive`, `restore` or `delete <key>`. */
export const chatCommand: Command = {
  name: "chat",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  touchesInstallation: true,
  prepare: prepareChat,
};

function prepareChat({ args, flags, cwd }: CommandWords<typeof OPTIONS>): PreparedCommand {
  const dir = needProject(flags.project, cwd);
  const [verb, key, ...rest] = args;
  if (rest.length > 0 || (verb !== undefined && (!VERBS.has(verb) || !key))) {
    throw new InvalidInputError(
      `sync chat takes no words (the list), or one of keep, archive, restore, delete and a ` +
        `session's key.\n${formatSummaries(SUMMARY)}`,
    );
  }
  const request: ChatRequest = { dir, verb, key };
  return async (context) => (await import("./run_chat.ts")).runChat(request, context);
}
