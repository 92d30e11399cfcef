/**
 * The clock's commands: `schedule` shows what runs when in a project,
 * `switch` turns a package's clock off or on there, and `projects` lists
 * (or shortens) the projects the clock ticks.
 *
 * @module
 */
import { resolve } from "../../internal/posix_path.ts";
import { WordsError } from "../parse_words.ts";
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { need, needProject } from "../need.ts";

const SCHEDULE_OPTIONS = {
  project: { type: "string" },
  json: { type: "boolean" },
} as const;

const SCHEDULE_SUMMARY: readonly CommandSummary[] = [{
  synopsis: "schedule --project <dir> [--json]",
  about: "One row per scheduled handler: what it does, how often,\n" +
    "on/off here, last attempt, next due.",
}];

/** `sync schedule --project <dir> [--json]`. */
export const scheduleCommand: Command = {
  name: "schedule",
  summary: SCHEDULE_SUMMARY,
  usage: `Usage:\n${formatSummaries(SCHEDULE_SUMMARY)}`,
  options: SCHEDULE_OPTIONS,
  touchesInstallation: true,
  prepare: prepareSchedule,
};

function prepareSchedule({ flags, cwd }: CommandWords<typeof SCHEDULE_OPTIONS>): PreparedCommand {
  const dir = needProject(flags.project, cwd);
  const json = flags.json === true;
  return async (context) => (await import("./run_schedule.ts")).runSchedule({ dir, json }, context);
}

const SWITCH_OPTIONS = { project: { type: "string" } } as const;

const SWITCH_SUMMARY: readonly CommandSummary[] = [{
  synopsis: "switch <id> off|on --project <dir>",
  about: "Turn a package's clock off or on in a project.",
}];

/** `sync switch <id> off|on --project <dir>`. */
export const switchCommand: Command = {
  name: "switch",
  summary: SWITCH_SUMMARY,
  usage: `Usage:\n${formatSummaries(SWITCH_SUMMARY)}`,
  options: SWITCH_OPTIONS,
  touchesInstallation: true,
  prepare: prepareSwitch,
};

function prepareSwitch({ args, flags, cwd }: CommandWords<typeof SWITCH_OPTIONS>): PreparedCommand {
  const id = need(args[0], "needs a package id");
  const state = args[1];
  if (state !== "off" && state !== "on") {
    throw new WordsError(`needs "off" or "on" after the id, not ${state ?? "nothing"}`);
  }
  const dir = needProject(flags.project, cwd);
  return async (context) =>
    (await import("./run_switch.ts")).runSwitch({ id, state, dir }, context);
}

const PROJECTS_OPTIONS = {} as const;

const PROJECTS_SUMMARY: readonly CommandSummary[] = [
  { synopsis: "projects", about: "The projects the clock ticks." },
  { synopsis: "projects forget <dir>", about: "Take a project off the clock's list." },
];

/** `sync projects`, and `sync projects forget <dir>`. */
export const projectsCommand: Command = {
  name: "projects",
  summary: PROJECTS_SUMMARY,
  usage: `Usage:\n${formatSummaries(PROJECTS_SUMMARY)}`,
  options: PROJECTS_OPTIONS,
  touchesInstallation: true,
  prepare: prepareProjects,
};

function prepareProjects({ args, cwd }: CommandWords<typeof PROJECTS_OPTIONS>): PreparedCommand {
  if (args[0] !== undefined && args[0] !== "forget") {
    throw new WordsError(`takes no words (the list), or forget <dir>; not "${args[0]}"`);
  }
  const forget = args[0] === "forget"
    ? resolve(cwd, need(args[1], "forget needs a project folder"))
    : undefined;
  return async (context) => (await import("./run_projects.ts")).runProjects(forget, context);
}
