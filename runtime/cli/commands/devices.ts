/**
 * `sync devices`: the devices of a project's applets — list them, connect
 * or disconnect an account, reset, pause, resume, run a task now, review a
 * run, and allow or take back the processing of their content. Each change
 * runs in the installation's owner, through the serve's task runner when a
 * serve runs. A remote account's credential is read from stdin or a prompt,
 * never from the command's words.
 *
 * @module
 */
import { resolve } from "../../internal/posix_path.ts";
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { need, needProject } from "../need.ts";
import { WordsError } from "../parse_words.ts";
import type { DevicesAction, DevicesRequest } from "./devices_request.ts";

const OPTIONS = {
  project: { type: "string" },
  json: { type: "boolean" },
  folder: { type: "string" },
  origin: { type: "string" },
  task: { type: "string" },
  endpoint: { type: "string" },
  revoke: { type: "boolean" },
  // Taken only to be refused in words that say where the credential goes instead.
  credential: { type: "string" },
} as const;

const SUMMARY: readonly CommandSummary[] = [
  {
    synopsis: "devices [list] --project <dir> [--json]",
    about: "The project's devices: state, account, last read, tasks.",
  },
  {
    synopsis: "devices connect <id> --folder <dir> --project <dir>",
    about: "Connect a folder for the device to read (read-only).",
  },
  {
    synopsis: "devices connect <id> --origin <https://host> --project <dir>",
    about: "Connect a remote account; the credential is read from stdin\n" +
      "or asked at a prompt, never given as a word.",
  },
  {
    synopsis: "devices disconnect|reset|pause|resume|review <id> --project <dir>",
    about: "Disconnect (forgets the credential), reset (drops what it read,\n" +
      "keeps the account), pause, resume, or mark a failed run reviewed.",
  },
  {
    synopsis: "devices run <id> [--task <name>] --project <dir>",
    about: "Run a task (sync by default) now and say how it ended.",
  },
  {
    synopsis: "devices consent <id> --endpoint <name>|--revoke --project <dir>",
    about: "Allow the device's content to be processed at a named endpoint,\n" +
      "or take that back.",
  },
];

const ACTIONS: readonly DevicesAction[] = [
  "list",
  "connect",
  "disconnect",
  "reset",
  "pause",
  "resume",
  "review",
  "run",
  "consent",
];

/** `sync devices [list|connect|disconnect|reset|pause|resume|review|run|consent] …`. */
export const devicesCommand: Command = {
  name: "devices",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  touchesInstallation: true,
  secret: (words) => {
    const flags = words.flags as { origin?: string };
    return words.args[0] === "connect" && typeof flags.origin === "string"
      ? `Credential for ${flags.origin} (not shown as you type): `
      : null;
  },
  prepare: prepareDevices,
};

/** Reads the words of `sync devices`. */
function readDevicesWords(
  { args, flags, cwd }: CommandWords<typeof OPTIONS>,
): DevicesRequest {
  const action = (args[0] ?? "list") as DevicesAction;
  if (!ACTIONS.includes(action)) {
    throw new WordsError(`does not know "${args[0]}"; it takes ${ACTIONS.join(", ")}`);
  }
  const dir = needProject(flags.project, cwd);
  if (action === "list") {
    if (args[1] !== undefined) throw new WordsError(`list takes no id, not "${args[1]}"`);
    return { action, dir, json: flags.json === true };
  }
  if (flags.credential !== undefined) {
    throw new WordsError(
      "--credential is not taken: a credential typed as a word stays in the shell's history " +
        "and shows in ps; leave it out and type it at the prompt, or pipe it on stdin " +
        "(printf '%s\\n' \"$TOKEN\" | sync devices connect <id> --origin <https://host> …)",
    );
  }
  const id = need(args[1], `${action} needs a package id`);
  const request: DevicesRequest = { action, dir, id };
  if (action === "connect") {
    if ((flags.folder === undefined) === (flags.origin === undefined)) {
      throw new WordsError("connect needs --folder <dir> or --origin <https://host>, one of them");
    }
    if (flags.folder !== undefined) request.folder = resolve(cwd, flags.folder);
    else request.origin = flags.origin;
  }
  if (action === "run") request.task = flags.task ?? "sync";
  if (action === "consent") {
    if ((flags.endpoint === undefined) === (flags.revoke !== true)) {
      throw new WordsError("consent needs --endpoint <name> or --revoke, one of them");
    }
    request.endpoint = flags.endpoint ?? null;
  }
  return request;
}

function prepareDevices(words: CommandWords<typeof OPTIONS>): PreparedCommand {
  const request = readDevicesWords(words);
  return async (context) => (await import("./run_devices.ts")).runDevices(request, context);
}
