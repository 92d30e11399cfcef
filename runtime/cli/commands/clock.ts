/**
 * The clock's commands: `schedule` shows what runs when in a project,
 * `switch` turns a package's clock off or on there, and `projects` lists
 * (or shortens) the projects the clock ticks.
 *
 * @module
 */
import { resolve } from "node:path";
import { InvalidInputError } from "../../errors.ts";
import { isFolder } from "../../internal/is_folder.ts";
import { printable } from "../../internal/printable.ts";
import {
  assertSwitchable,
  describeSchedule,
  forgetScheduledProject,
  listScheduledProjects,
  projectOrWhereItWent,
  switchOff,
  switchOn,
} from "../../clock/mod.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { need, needProject } from "../need.ts";
import { withHost } from "../with_host.ts";

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
  run: runSchedule,
  touchesInstallation: true,
};

async function runSchedule(context: CommandContext<typeof SCHEDULE_OPTIONS>): Promise<number> {
  const { flags, io } = context;
  const dir = needProject(flags.project, context.cwd);
  return await withHost(context, async (host) => {
    const project = await projectOrWhereItWent(host.kv, dir);
    const rows = await describeSchedule(host.kv, project, host);
    if (rows.length === 0) io.out("Nothing here runs on the clock.");
    for (const row of rows) {
      if (flags.json) {
        io.out(JSON.stringify(row));
        continue;
      }
      const attempt = row.lastAttempt;
      const last = attempt
        ? `last ${shortTime(attempt.startedAt)} ${attempt.outcome}` +
          (attempt.error ? ` (${printable(attempt.error.message)})` : "")
        : "never ran";
      const next = !row.on
        ? "Off for this project"
        : row.blocked
        ? `passed over (${row.blocked.reason}): ${printable(row.blocked.message)}`
        : `next ${shortTime(row.nextDue!)}`;
      io.out(
        `${printable(row.packageName)} (${row.packageId}): ${printable(row.description)}, ` +
          `${row.wording}` +
          `  [${row.on ? "on" : "off"}]  ${last}  ${next}` +
          (row.needsReview ? "  NEEDS REVIEW: the last three attempts failed" : ""),
      );
    }
    return 0;
  });
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
  run: runSwitch,
  touchesInstallation: true,
};

async function runSwitch(context: CommandContext<typeof SWITCH_OPTIONS>): Promise<number> {
  const { args, flags, io } = context;
  const id = need(args[0], "switch needs a package id");
  const state = args[1];
  if (state !== "off" && state !== "on") {
    throw new InvalidInputError(
      `switch needs "off" or "on" after the id, not ${state ?? "nothing"}`,
    );
  }
  const dir = needProject(flags.project, context.cwd);
  return await withHost(context, async (host) => {
    const project = await resolveProjectDir(dir);
    await assertSwitchable(host.kv, project, id);
    if (state === "off") await switchOff(host.kv, project, id, host);
    else await switchOn(host.kv, project, id, host);
    io.out(`${id}'s clock is ${state} for ${project}`);
    return 0;
  });
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
  run: runProjects,
  touchesInstallation: true,
};

async function runProjects(context: CommandContext<typeof PROJECTS_OPTIONS>): Promise<number> {
  const { args, io } = context;
  if (args[0] !== undefined && args[0] !== "forget") {
    throw new InvalidInputError(
      `sync projects takes: no words (the list), or forget <dir>; not "${args[0]}"`,
    );
  }
  if (args[0] === "forget") {
    const dir = resolve(context.cwd, need(args[1], "projects forget needs a project folder"));
    return await withHost(context, async (host) => {
      let path = dir;
      try {
        path = await resolveProjectDir(dir);
      } catch { /* a folder that is gone can still be forgotten by the path given */ }
      const forgotten = await forgetScheduledProject(host.kv, path);
      if (forgotten) host.events.publish({ type: "unscheduled", project: path });
      io.out(
        forgotten ? `The clock no longer ticks ${path}` : `${path} was not on the clock's list`,
      );
      return 0;
    });
  }
  return await withHost(context, async (host) => {
    const projects = await listScheduledProjects(host.kv);
    if (projects.length === 0) io.out("No project is on the clock's list.");
    for (const project of projects) {
      io.out(
        await isFolder(project.path) ? project.path : `${project.path}  (the folder is gone)`,
      );
    }
    return 0;
  });
}

/** `2030-01-01T09:00:00.000Z` → `2030-01-01 09:00:00Z`. */
function shortTime(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d{3}Z$/, "Z");
}
