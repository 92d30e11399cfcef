/**
 * The package commands: `install` a package into a project, `remove` it, and
 * `list` what a project has installed.
 *
 * @module
 */
import { resolve } from "node:path";
import { printable } from "../../internal/printable.ts";
import { commandLine } from "../../packages/mod.ts";
import { LifecycleFailedError } from "../../errors.ts";
import { installPackage, installReport, removePackage } from "../../lifecycle/mod.ts";
import { readDeclaredIds, resolveProjectDir } from "../../projects/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { describeInstalled } from "../describe_installed.ts";
import { formatSummaries } from "../format_summaries.ts";
import { need, needProject } from "../need.ts";
import { refuseUsage } from "../report_failure.ts";
import { withHost } from "../with_host.ts";

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
  run: runInstall,
  touchesInstallation: true,
};

async function runInstall(context: CommandContext<typeof INSTALL_OPTIONS>): Promise<number> {
  const { args, flags, io } = context;
  if (!args[0]) {
    return refuseUsage(
      "install",
      INSTALL_USAGE,
      "needs the package folder or archive to install",
      io,
    );
  }
  const source = resolve(context.cwd, args[0]);
  const project = needProject(flags.project, context.cwd);
  // A refusal names the command the person typed, with the word it needs added.
  const typed = (added: "approve" | "replace") => {
    const words = ["install", args[0]];
    if (flags.project !== undefined) words.push("--project", flags.project);
    for (const flag of ["approve", "replace"] as const) {
      if (flags[flag] || flag === added) words.push(`--${flag}`);
    }
    return `sync ${commandLine(words[0], words.slice(1))}`;
  };
  return await withHost(context, async (host) => {
    const result = await installPackage(host, source, project, {
      approve: flags.approve,
      replace: flags.replace,
      confirm: { approve: typed("approve"), replace: typed("replace") },
    });
    for (const line of installReport(result)) io.out(line);
    return 0;
  });
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
  run: runRemove,
  touchesInstallation: true,
};

async function runRemove(context: CommandContext<typeof REMOVE_OPTIONS>): Promise<number> {
  const { args, flags, io } = context;
  const id = need(args[0], "remove needs a package id");
  const project = needProject(flags.project, context.cwd);
  return await withHost(context, async (host) => {
    const result = await removePackage(host, id, project, { force: flags.force }).catch(
      (error) => {
        if (!(error instanceof LifecycleFailedError)) throw error;
        // The command the person can type to remove it anyway.
        throw new LifecycleFailedError(
          `${error.message}\nTo remove it anyway: sync remove ${id} --project ${project} --force`,
          { cause: error.cause },
        );
      },
    );
    const { removed } = result;
    if (removed?.outcome === "failed") {
      io.err(
        `Its removed handler ${removed.handler} failed: ${printable(removed.error!.message)}; ` +
          `removed anyway (--force)`,
      );
    } else if (removed) io.out(`Ran its removed handler ${removed.handler}: ok`);
    if (result.notice) io.err(printable(result.notice));
    io.out(`Removed ${id}; its records stay in the project's memory`);
    return 0;
  });
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
  run: runList,
  touchesInstallation: true,
};

async function runList(context: CommandContext<typeof LIST_OPTIONS>): Promise<number> {
  const { flags, io } = context;
  const dir = needProject(flags.project, context.cwd);
  return await withHost(context, async (host) => {
    // A read: it does not open the project (that is `sync open`).
    const project = await resolveProjectDir(dir);
    const ids = await readDeclaredIds(project);
    if (ids.length === 0) io.out("Nothing is installed in this project.");
    for (const id of ids) io.out(await describeInstalled(host.kv, project, id, { now: host.now }));
    return 0;
  });
}
