/**
 * The `sync` command line: finds the command named by the first word that is
 * not a flag, parses the rest with that command's own flags, runs it, and
 * maps what it throws to a message and an exit code (0 done, 1 refused or
 * failed, 2 bad usage).
 *
 * Run it as `deno task sync <command>` (and `deno task check|build|new`);
 * `SYNC_HOME` chooses the installation. Each command is one entry of
 * {@linkcode COMMANDS}, declared in a file under `commands/` that loads
 * nothing of the runtime; its implementation is imported only when it runs
 * in this process. A command that touches the installation runs in its
 * owner (`through_owner.ts`), decided before its implementation is loaded:
 * the serve that runs, or this process for the length of the command.
 *
 * @module
 */
import type { ParseArgsOptionsConfig } from "node:util";
import type { WorkPerformer } from "../agents/mod.ts";
import type { TaskRunner } from "../applets/mod.ts";
import type { Host } from "../host/mod.ts";
import { syncHome } from "../projects/mod.ts";
import type { CommandOutput, CommandRequest, ServedParts } from "../web/mod.ts";
import { argTokens } from "./arg_tokens.ts";
import type { Command, InstallationAccess, PreparedCommand } from "./command.ts";
import { agentsCommand } from "./commands/agents.ts";
import { buildCommand, newCommand } from "./commands/author.ts";
import { callCommand } from "./commands/call.ts";
import { chatCommand } from "./commands/chat.ts";
import { devicesCommand } from "./commands/devices.ts";
import { checkCommand } from "./commands/check.ts";
import { projectsCommand, scheduleCommand, switchCommand } from "./commands/clock.ts";
import { mcpCommand } from "./commands/mcp.ts";
import { openCommand } from "./commands/open.ts";
import { installCommand, listCommand, removeCommand } from "./commands/packages.ts";
import { receiptsCommand } from "./commands/receipts.ts";
import { recordsCommand } from "./commands/records.ts";
import { serveCommand } from "./commands/serve.ts";
import { writeCommand } from "./commands/write.ts";
import { formatSummaries } from "./format_summaries.ts";
import { type CliIo, consoleIo } from "./io.ts";
import { parseWords, WordsError } from "./parse_words.ts";
import { readSecret } from "./read_secret.ts";
import { refuseUsage, reportFailure } from "./report_failure.ts";
import { throughOwner } from "./through_owner.ts";

/** Every command, in the order `sync help` lists them. */
export const COMMANDS: readonly Command[] = [
  buildCommand,
  newCommand,
  checkCommand,
  installCommand,
  removeCommand,
  openCommand,
  listCommand,
  callCommand,
  recordsCommand,
  writeCommand,
  receiptsCommand,
  scheduleCommand,
  switchCommand,
  projectsCommand,
  devicesCommand,
  chatCommand,
  agentsCommand,
  serveCommand(runSentCommand),
  mcpCommand,
];

/** `--help`/`-h`, which every command takes. */
const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

/**
 * Every command's flags at once: enough to tell a flag's value from the
 * command's name wherever the command stands (`sync --project p list`).
 */
const ALL_OPTIONS: ParseArgsOptionsConfig = Object.assign(
  {},
  ...COMMANDS.map((command) => command.options),
  HELP_OPTION,
);

/** What `sync help` prints. */
export const USAGE = `Usage: sync <command> [options]

Commands:
${formatSummaries(COMMANDS.flatMap((command) => command.summary))}

The installation lives in $SYNC_HOME (default: $XDG_DATA_HOME/sync, else ~/.local/share/sync).
\`sync help <command>\` (or \`sync <command> --help\`) prints that command's usage.`;

/** Options for {@linkcode runCli}. */
export interface RunCliOptions {
  /** Where output goes; tests capture it. Default: stdout and stderr. */
  io?: CliIo;
  /**
   * The folder relative paths start from, as the person knows it; the
   * process should already be there (see `enterStartFolder`). Default: the
   * current folder.
   */
  cwd?: string;
  /**
   * The host of the serve that runs this command for a person who sent it
   * from the CLI: the command runs on it, and only a command that touches
   * the installation is taken.
   */
  served?: Host;
  /** The serve's performer of conversations, with {@linkcode RunCliOptions.served}. */
  work?: WorkPerformer;
  /** The serve's task runner, with {@linkcode RunCliOptions.served}. */
  tasks?: TaskRunner;
  /** The secret the person gave where they typed the command, with {@linkcode RunCliOptions.served}. */
  secret?: string;
}

/**
 * Runs one CLI command and answers its exit code: 0 done, 1 refused or
 * failed (the reason is on stderr), 2 bad usage. A flag the command does not
 * take is bad usage, refused with the command's usage; `--help` prints it.
 *
 * @param args The words after `sync`, such as `["list", "--project", "."]`.
 * @param options Where output goes and where relative paths start.
 * @example
 * ```ts
 * Deno.exit(await runCli(["check", "extensions/hello"]));
 * ```
 */
export async function runCli(args: string[], options: RunCliOptions = {}): Promise<number> {
  const io = options.io ?? consoleIo();
  const at = commandIndex(args);
  const name = at === -1 ? undefined : args[at];
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) return answerWithoutCommand(args, name, io);
  const cwd = options.cwd ?? Deno.cwd();
  if (options.served && !command.touchesInstallation) {
    io.err(`sync ${command.name}: runs where it is typed, not in sync serve`);
    return 2;
  }
  const served: InstallationAccess | undefined = options.served
    ? { kind: "served", host: options.served, work: options.work, tasks: options.tasks }
    : undefined;
  return await runCommand(command, { args, at }, io, cwd, served, options.secret);
}

/**
 * Runs a command the CLI sent to the serve that owns the installation, on
 * that serve's host, with its lines going back to the person; handlers'
 * console lines go to the person's stderr, as they would had the command
 * run where it was typed.
 */
function runSentCommand(
  request: CommandRequest,
  output: CommandOutput,
  host: Host,
  { work, tasks }: ServedParts,
) {
  return runCli(request.args, {
    io: output,
    cwd: request.cwd,
    served: host.withLog(output.err),
    work,
    tasks,
    secret: request.secret,
  });
}

/** Where the command's name stands in `args`: the first word that is not a flag or its value. */
function commandIndex(args: string[]): number {
  const { tokens } = argTokens(args, ALL_OPTIONS);
  return tokens.find((token) => token.kind === "positional")?.index ?? -1;
}

/**
 * Parses a command's words with its own flags and has the command read
 * them; then runs it where it runs (see {@linkcode runWhereOwned}).
 */
async function runCommand(
  command: Command,
  typed: { args: string[]; at: number },
  io: CliIo,
  cwd: string,
  served: InstallationAccess | undefined,
  given?: string,
): Promise<number> {
  let parsed;
  try {
    parsed = parseWords(
      typed.args.toSpliced(typed.at, 1),
      { ...command.options, ...HELP_OPTION },
      command.name,
    );
  } catch (error) {
    if (!(error instanceof WordsError)) throw error;
    return refuseUsage(command.name, command.usage, error.message, io);
  }
  const { help, ...flags } = parsed.values;
  if (help) {
    io.out(command.usage);
    return 0;
  }
  const most = wordsTaken(command);
  const extra = parsed.positionals.slice(most);
  if (extra.length > 0) {
    return refuseUsage(
      command.name,
      command.usage,
      `${extra.map((word) => JSON.stringify(word)).join(" ")} ${
        extra.length === 1 ? "is one word" : `are ${extra.length} words`
      } too many: ${command.name} takes ${
        most === 0 ? "only flags" : `at most ${most}`
      } (quote a value that has spaces)`,
      io,
    );
  }
  try {
    let run: PreparedCommand;
    let asks: string | null = null;
    try {
      const words = { args: parsed.positionals, flags, io, cwd };
      run = command.prepare(words);
      asks = command.secret?.(words) ?? null;
    } catch (error) {
      if (!(error instanceof WordsError)) throw error;
      return refuseUsage(command.name, command.usage, error.message, io);
    }
    // Read where it is typed; a serve running the command was given it beside the words.
    const secret = asks === null ? undefined : served ? given : await readSecret(asks);
    if (!command.touchesInstallation) return await run({ io, cwd, secret });
    if (served) return await run({ io, cwd, installation: served, secret });
    return await runWhereOwned(command.name, typed.args, run, io, cwd, secret);
  } catch (error) {
    // A word found missing only as the command runs is bad usage all the same.
    if (error instanceof WordsError) {
      return refuseUsage(command.name, command.usage, error.message, io);
    }
    return reportFailure(error, command.name, io);
  }
}

/**
 * Runs a command typed here that touches the installation in its owner,
 * decided before the command's implementation is loaded: sent whole (`args`,
 * every word after `sync`, and the folder typed in) to the serve that owns the
 * installation, which runs it from its first word, loading nothing of the
 * runtime here; else run here while this process holds the installation.
 */
async function runWhereOwned(
  name: string,
  args: string[],
  run: PreparedCommand,
  io: CliIo,
  cwd: string,
  secret?: string,
): Promise<number> {
  const home = syncHome();
  return await throughOwner(
    { home, command: name, args, cwd, io, secret },
    () => run({ io, cwd, installation: { kind: "owned", home }, secret }),
  );
}

/**
 * The most words a command takes after its name, as its synopses write them:
 * `install <folder|archive> --project <dir>` takes one, `new <id> [dir]` two;
 * a flag's value (`--project <dir>`) is not a word.
 */
function wordsTaken(command: Command): number {
  return Math.max(
    ...command.summary.map(({ synopsis }) => {
      const tokens = synopsis.split(/\s+/).slice(1);
      const flag = tokens.findIndex((token) => /^\[?--/.test(token));
      return flag === -1 ? tokens.length : flag;
    }),
  );
}

/**
 * `sync`, `sync help [command]`, `sync --help` and an unknown command: the
 * command list, or the command's usage, on stdout when asked for (exit 0);
 * else the reason and the command list on stderr, as bad usage (exit 2).
 */
function answerWithoutCommand(args: string[], name: string | undefined, io: CliIo): number {
  const refuse = (who: string, reason: string) => {
    io.err(`${who}: ${reason}\n\n${USAGE}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseWords(args, ALL_OPTIONS, undefined);
  } catch (error) {
    if (!(error instanceof WordsError)) throw error;
    return refuse("sync", error.message);
  }
  const asked = name === "help" || parsed.values.help === true;
  if (!asked) {
    return refuse(
      "sync",
      name === undefined
        ? "no command given; name one of those below"
        : `unknown command ${JSON.stringify(name)}`,
    );
  }
  const [topic, ...extra] = name === "help" ? parsed.positionals.slice(1) : parsed.positionals;
  if (topic === undefined || (topic === "help" && extra.length === 0)) {
    io.out(USAGE);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === topic);
  if (!command) return refuse("sync help", `unknown command ${JSON.stringify(topic)}`);
  if (extra.length > 0) {
    return refuse(
      "sync help",
      `help takes one command's name; ${
        extra.map((word) => JSON.stringify(word)).join(" ")
      } is more than that`,
    );
  }
  io.out(command.usage);
  return 0;
}
