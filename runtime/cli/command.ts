/**
 * What a CLI command is: its name, how `sync help` lists it, its own usage
 * text, the flags it takes, how it reads its words and what it runs.
 * `runCli` (in `sync.ts`) finds a command by name in its table, parses the
 * words after it with that command's flags only, has the command read them,
 * decides where it runs, and maps what it throws to a message and an exit
 * code. A command's declaration (`commands/<name>.ts`) is light; its
 * implementation (`commands/run_<name>.ts`) is imported only by the process
 * that runs it.
 *
 * @module
 */
import type { ParseArgsOptionsConfig } from "node:util";
import type { WorkPerformer } from "../agents/mod.ts";
import type { TaskRunner } from "../applets/mod.ts";
import type { Host } from "../host/mod.ts";
import type { CliIo } from "./io.ts";

/** One entry of the command list in `sync help` and in a command's usage. */
export interface CommandSummary {
  /** How the command is written, such as `list --project <dir>`. */
  synopsis: string;
  /** What it does; `\n` breaks it into the lines the list shows. */
  about: string;
}

/**
 * The parsed values of a command's flags: a string for a string flag, true
 * for a boolean one, a list of each value given for a flag marked
 * `multiple: true`, absent when not given.
 */
export type FlagValues<O extends ParseArgsOptionsConfig> = {
  [K in keyof O]?: O[K] extends { multiple: true }
    ? (O[K]["type"] extends "boolean" ? boolean[] : string[])
    : O[K]["type"] extends "boolean" ? boolean
    : O[K]["type"] extends "string" ? string
    : string | boolean;
};

/**
 * How a command that touches the installation reaches it, once its owner is
 * decided (see `through_owner.ts`): the installation has one owner at a time.
 */
export type InstallationAccess =
  /**
   * Typed here, and this process owns the installation for the length of
   * the command: `runCli` took it before it loaded the command's
   * implementation, and lets it go after; `withHost` opens the KV and a host
   * over it in `home`.
   */
  | { kind: "owned"; home: string }
  /**
   * Sent here by the CLI: this serve owns the installation, and the command
   * runs on its host; `work` is its performer of conversations, which a
   * command that changes a conversation goes through.
   */
  | { kind: "served"; host: Host; work?: WorkPerformer; tasks?: TaskRunner };

/** The words a command was given, read with its flags, and where it was typed. */
export interface CommandWords<O extends ParseArgsOptionsConfig = ParseArgsOptionsConfig> {
  /** The words after the command's name that are not flags. */
  args: string[];
  /** The command's flags, as given. */
  flags: FlagValues<O>;
  /** Where it writes. */
  io: CliIo;
  /**
   * The folder relative paths start from, as the person knows it (the
   * process is already there; see `start_folder.ts`). Resolve every path
   * the person typed from it: a serve running the command is elsewhere.
   */
  cwd: string;
}

/** Where a prepared command runs. */
export interface CommandContext {
  /** Where it writes. */
  io: CliIo;
  /** The folder relative paths start from, as the person knows it. */
  cwd: string;
  /**
   * How the command reaches the installation; given to commands that touch
   * it (see {@linkcode Command.touchesInstallation}), which use it through
   * `withHost`.
   */
  installation?: InstallationAccess;
  /**
   * The secret the person gave for the command (see {@linkcode Command.secret}),
   * read where they typed it; absent when the command's words take none.
   */
  secret?: string;
}

/**
 * A command read from its words, ready to run: it imports the command's
 * implementation (`commands/run_<name>.ts`) when called, and answers the
 * exit code. A domain error it throws becomes a message and an exit code
 * (see `report_failure.ts`).
 */
export type PreparedCommand = (context: CommandContext) => Promise<number>;

/**
 * One `sync` command: what it is called, how it is listed and used, and how
 * it reads its words. Adding a command is adding one of these to the table
 * in `sync.ts`. A declaration loads nothing of the runtime: `sync help` and
 * a command sent to a running serve load only declarations.
 */
export interface Command<O extends ParseArgsOptionsConfig = ParseArgsOptionsConfig> {
  /** The word after `sync`, such as `install`. */
  name: string;
  /** Its entries in `sync help`, in order. */
  summary: readonly CommandSummary[];
  /** What `sync <name> --help` prints, and what follows a refusal of its flags. */
  usage: string;
  /** Its flags, for `parseArgs`; `--help`/`-h` is added to every command. */
  options: O;
  /**
   * True when it reads or changes the installation: it then runs in the
   * installation's owner — sent to the serve that runs, or run here while
   * this process holds the installation — and reaches it with `withHost`.
   */
  touchesInstallation?: boolean;
  /**
   * When the command's words take a secret (a credential): what to ask the
   * person, or null when these words take none. The secret is read where the
   * command is typed — from stdin when it is not a terminal, else at a prompt
   * that does not echo — and carried to the owner beside the words, never as
   * one of them (words end up in shell history and in `ps`).
   */
  secret?(words: CommandWords): string | null;
  /**
   * Reads the command's words, refusing bad usage by throwing (a
   * `WordsError` is refused with the command's usage), before the owner is
   * decided or anything is loaded; answers what runs the command.
   */
  prepare(words: CommandWords<O>): PreparedCommand;
}
