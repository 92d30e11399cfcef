/**
 * The package commands: `install` a package into a project, `remove` it, and
 * `list` what a project has installed.
 *
 * @module
 */
import { resolve } from "../../internal/posix_path.ts";
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { need, needProject } from "../need.ts";
import { WordsError } from "../parse_words.ts";
import type { InstallRequest } from "./run_install.ts";

const INSTALL_OPTIONS = {
  project: { type: "string" },
  approve: { type: "boolean" },
  replace: { type: "boolean" },
} as const;

const INSTALL_SUMMARY: readonly CommandSummary[] = [{
  synopsis: "install <folder|archive> --project <dir> [--approve] [--replace]",
  about: "Install a package into a project. Without --approve it\n" +
    "prints the permissions it asks for and refuses. Without\n" +
    "--replace it refuses to replace a package installed under\n" +
    "the same id from another source, or a newer version.",
}];

const INSTALL_USAGE = `Usage:
${formatSummaries(INSTALL_SUMMARY)}

  <folder|archive>  A package folder (holding manifest.json), or an archive
                    (.tar.gz, .tgz, .tar, .zip) of one.
  --project <dir>   The project folder to install it into.

Example:
  sync install ./hello --project ~/code/site --approve`;

/** `sync install <folder|archive> --project <dir> [--approve] [--replace]`. */
export const installCommand: Command = {
  name: "install",
  summary: INSTALL_SUMMARY,
  usage: INSTALL_USAGE,
  options: INSTALL_OPTIONS,
  touchesInstallation: true,
  prepare: prepareInstall,
};

function prepareInstall(
  { args, flags, cwd }: CommandWords<typeof INSTALL_OPTIONS>,
): PreparedCommand {
  if (!args[0]) throw new WordsError("needs the package folder or archive to install");
  const request: InstallRequest = {
    source: resolve(cwd, args[0]),
    project: needProject(flags.project, cwd),
    typed: {
      source: args[0],
      project: flags.project,
      approve: flags.approve,
      replace: flags.replace,
    },
  };
  return async (context) => (await import("./run_install.ts")).runInstall(request, context);
}

const REMOVE_OPTIONS = {
  project: { type: "string" },
  force: { type: "boolean" },
} as const;

const REMOVE_SUMMARY: readonly CommandSummary[] = [{
  synopsis: "remove <id> --project <dir> [--force]",
  about: "Remove a package from a project (its records stay). Its\n" +
    "removed handler runs first; if it fails the removal is\n" +
    "refused unless --force.",
}];

/** `sync remove <id> --project <dir> [--force]`. */
export const removeCommand: Command = {
  name: "remove",
  summary: REMOVE_SUMMARY,
  usage: `Usage:\n${formatSummaries(REMOVE_SUMMARY)}`,
  options: REMOVE_OPTIONS,
  touchesInstallation: true,
  prepare: prepareRemove,
};

function prepareRemove({ args, flags, cwd }: CommandWords<typeof REMOVE_OPTIONS>): PreparedCommand {
  const id = need(args[0], "needs a package id");
  const project = needProject(flags.project, cwd);
  const force = flags.force;
  return async (context) =>
    (await import("./run_remove.ts")).runRemove({ id, project, force }, context);
}

const LIST_OPTIONS = { project: { type: "string" } } as const;

const LIST_SUMMARY: readonly CommandSummary[] = [{
  synopsis: "list --project <dir>",
  about: "The packages installed in a project.",
}];

/** `sync list --project <dir>`. */
export const listCommand: Command = {
  name: "list",
  summary: LIST_SUMMARY,
  usage: `Usage:\n${formatSummaries(LIST_SUMMARY)}`,
  options: LIST_OPTIONS,
  touchesInstallation: true,
  prepare: prepareList,
};

function prepareList({ flags, cwd }: CommandWords<typeof LIST_OPTIONS>): PreparedCommand {
  const dir = needProject(flags.project, cwd);
  return async (context) => (await import("./run_list.ts")).runList(dir, context);
}
