/**
 * The `sync` command line: install, remove and list packages in a project,
 * call handlers, read records and receipts, and serve the app.
 *
 * Run it as `deno task sync <command>`; `SYNC_HOME` chooses the installation.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { AUTHOR_COMMANDS, runAuthorCli } from "./author.ts";
import { runCheckCli } from "./check.ts";
import { exitCodeOf } from "../error_status.ts";
import { resolve } from "node:path";
import { InvalidInputError, NotFoundError, SyncError } from "../errors.ts";
import { Host } from "../host/host.ts";
import { installPackage, removePackage } from "../lifecycle/install.ts";
import { describeServingState, readServingState } from "../packages/serving.ts";
import { loadPackage, readPackageRef } from "../packages/store.ts";
import { describePermission } from "../packages/permission_text.ts";
import { readDeclaredIds, readProject, resolveProjectDir } from "../projects/project.ts";
import { openProject } from "../lifecycle/open.ts";
import { listRecords } from "../memory/store.ts";
import { listReceipts } from "../host/receipts.ts";
import { openInstallation, syncHome } from "../projects/home.ts";
import { serve } from "../web/serve.ts";
import { describeSchedule } from "../clock/schedule_view.ts";
import { switchOff, switchOn } from "../clock/switch.ts";
import {
  forgetScheduledProject,
  isScheduledProject,
  listScheduledProjects,
} from "../clock/scheduled_projects.ts";

const USAGE = `Usage: sync <command> [options]

Commands:
  build [dir]            Compile a package's src/service.ts and src/index.tsx.
  new <id> [dir]         Create a package folder that passes check.
  check [dir] [--json]   Build a package, then check it; exits 0 only when clean.
  install <folder|archive> --project <dir> [--approve]
                         Install a package into a project. Without --approve it
                         prints the permissions it asks for and refuses.
  remove <id> --project <dir> [--force]
                         Remove a package from a project (its records stay). Its
                         removed handler runs first; if it fails the removal is
                         refused unless --force.
  open --project <dir>   Open a project: remember what it declares, put it on the
                         clock's list if it has a schedule, run opened handlers.
  list --project <dir>   The packages installed in a project.
  call <id> <handler> --project <dir> [--payload <json>]
                         Call a handler; prints its JSON answer.
  records --project <dir> [--kind <kind>] [--prefix <prefix>]
                         The project's records, one JSON line each.
  receipts --project <dir> [--id <id>] [--limit <n>] [--json]
                         What handler calls left behind, newest first.
  schedule --project <dir> [--json]
                         One row per scheduled handler: what it does, how often,
                         on/off here, last attempt, next due.
  switch <id> off|on --project <dir>
                         Turn a package's clock off or on in a project.
  projects               The projects the clock ticks.
  projects forget <dir>  Take a project off the clock's list.
  serve [--port <port>]  Serve the app on 127.0.0.1 and run the clock.

The installation lives in $SYNC_HOME (default: ~/.local/share/sync).`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * Runs one CLI command and returns its exit code.
 *
 * @param args The words after `sync`.
 * @param io Where output goes; tests capture it.
 */
export async function runCli(args: string[], io: Io = defaultIo()): Promise<number> {
  if (args[0] === "check") return await runCheckCli(args.slice(1), { io });
  if (AUTHOR_COMMANDS.includes(args[0])) return await runAuthorCli(args, { io });
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        project: { type: "string" },
        approve: { type: "boolean" },
        force: { type: "boolean" },
        payload: { type: "string" },
        kind: { type: "string" },
        prefix: { type: "string" },
        id: { type: "string" },
        limit: { type: "string" },
        json: { type: "boolean" },
        port: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    io.err(`sync: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  const flags = parsed.values;
  if (!command || flags.help || command === "help") {
    io.out(USAGE);
    return command || flags.help ? 0 : 2;
  }
  const home = syncHome();
  let kv: Deno.Kv | undefined;
  let host: Host | undefined;
  try {
    kv = await openInstallation(home);
    host = new Host({ kv, home, log: io.err });
    switch (command) {
      case "install": {
        const source = need(rest[0], "install needs a folder or an archive");
        const result = await installPackage(host, source, needProject(flags.project), {
          approve: flags.approve,
        });
        const { manifest, ref } = result.package;
        io.out(
          `Installed ${manifest.id}@${manifest.version} (${ref.source}: ${ref.dir}) into ${result.project}`,
        );
        if (result.approved.length) io.out(`Approved: ${result.approved.join(", ")}`);
        if (result.installed) io.out(`Ran its installed handler ${result.installed.handler}: ok`);
        return 0;
      }
      case "remove": {
        const id = need(rest[0], "remove needs a package id");
        const result = await removePackage(host, id, needProject(flags.project), {
          force: flags.force,
        });
        const { removed } = result;
        if (removed?.outcome === "failed") {
          io.err(
            `Its removed handler ${removed.handler} failed: ${removed.error!.name}: ` +
              `${removed.error!.message}; removed anyway (--force)`,
          );
        } else if (removed) io.out(`Ran its removed handler ${removed.handler}: ok`);
        if (result.notice) io.err(result.notice);
        io.out(`Removed ${id}; its records stay in the project's memory`);
        return 0;
      }
      case "open": {
        const result = await openProject(host, needProject(flags.project));
        const ids = result.project.extensionIds;
        io.out(
          `Opened ${result.project.path}: ${
            ids.length ? `${ids.length} installed (${ids.join(", ")})` : "nothing installed"
          }${result.scheduled ? "; on the clock's scheduled list" : ""}`,
        );
        for (const run of result.opened) {
          if (run.outcome === "ok") io.out(`  ${run.handler} (opened): ok`);
          else {io.err(
              `  ${run.handler} (opened) failed: ${run.error!.name}: ${run.error!.message}`,
            );}
        }
        for (const { packageId, message } of result.unavailable) {
          io.err(`  ${packageId} cannot serve here: ${message}`);
        }
        return 0;
      }
      case "list": {
        // A read: it does not open the project (that is `sync open`).
        const project = await resolveProjectDir(needProject(flags.project));
        const ids = await readDeclaredIds(project);
        if (ids.length === 0) io.out("Nothing is installed in this project.");
        for (const id of ids) io.out(await describeInstalled(host, project, id));
        return 0;
      }
      case "call": {
        const id = need(rest[0], "call needs a package id and a handler");
        const handler = need(rest[1], "call needs a handler name after the package id");
        let payload: unknown = null;
        if (flags.payload !== undefined) {
          try {
            payload = JSON.parse(flags.payload);
          } catch (error) {
            throw new InvalidInputError(`--payload is not JSON: ${(error as Error).message}`);
          }
        }
        const { value } = await host.callHandler(needProject(flags.project), id, handler, {
          occasion: { kind: "extension" },
          source: { kind: "person" },
          payload,
        });
        io.out(JSON.stringify(value));
        return 0;
      }
      case "records": {
        const project = await resolveProjectDir(needProject(flags.project));
        const memory = await host.projectMemory(project);
        let cursor: string | undefined;
        do {
          const page = await listRecords(memory, {
            kind: flags.kind,
            prefix: flags.prefix,
            limit: 500,
            cursor,
          });
          for (const record of page.records) io.out(JSON.stringify(record));
          cursor = page.cursor;
        } while (cursor);
        return 0;
      }
      case "receipts": {
        const project = await knownProjectPath(kv, needProject(flags.project));
        const limit = flags.limit ? Number(flags.limit) : 50;
        if (!Number.isInteger(limit) || limit < 1) {
          throw new InvalidInputError(
            `--limit must be a positive whole number, not ${flags.limit}`,
          );
        }
        const receipts = await listReceipts(kv, project, { packageId: flags.id, limit });
        for (const r of receipts) {
          if (flags.json) {
            io.out(JSON.stringify(r));
            continue;
          }
          const ms = Date.parse(r.endedAt) - Date.parse(r.startedAt);
          const occasion = r.occasion.moment
            ? `${r.occasion.kind}:${r.occasion.moment}`
            : r.occasion.kind;
          io.out(
            `${r.startedAt}  ${r.outcome.padEnd(7)} ${r.handler || "(every handler)"} ` +
              `(${occasion}, ${ms} ms)` +
              (r.error ? `  ${r.error.name}: ${r.error.message}` : ""),
          );
        }
        if (receipts.length === 0) io.out("No receipts yet.");
        return 0;
      }
      case "schedule": {
        const project = await projectOrWhereItWent(kv, needProject(flags.project));
        const rows = await describeSchedule(kv, project, host);
        if (rows.length === 0) io.out("Nothing here runs on the clock.");
        for (const row of rows) {
          if (flags.json) {
            io.out(JSON.stringify(row));
            continue;
          }
          const attempt = row.lastAttempt;
          const last = attempt
            ? `last ${shortTime(attempt.startedAt)} ${attempt.outcome}` +
              (attempt.error ? ` (${attempt.error.name}: ${attempt.error.message})` : "")
            : "never ran";
          const next = !row.on
            ? "Off for this project"
            : row.blocked
            ? `passed over (${row.blocked.reason}): ${row.blocked.message}`
            : `next ${shortTime(row.nextDue!)}`;
          io.out(
            `${row.packageName} (${row.packageId}): ${row.description}, ${row.wording}` +
              `  [${row.on ? "on" : "off"}]  ${last}  ${next}` +
              (row.needsReview ? "  NEEDS REVIEW: the last three attempts failed" : ""),
          );
        }
        return 0;
      }
      case "switch": {
        const id = need(rest[0], "switch needs a package id");
        const state = rest[1];
        if (state !== "off" && state !== "on") {
          throw new InvalidInputError(
            `switch needs "off" or "on" after the id, not ${state ?? "nothing"}`,
          );
        }
        const project = await resolveProjectDir(needProject(flags.project));
        await assertSwitchable(host, project, id);
        if (state === "off") await switchOff(kv, project, id, host);
        else await switchOn(kv, project, id);
        io.out(`${id}'s clock is ${state} for ${project}`);
        return 0;
      }
      case "projects": {
        if (rest[0] === "forget") {
          const dir = need(rest[1], "projects forget needs a project folder");
          let path = dir;
          try {
            path = await resolveProjectDir(dir);
          } catch { /* a folder that is gone can still be forgotten by the path given */ }
          const forgotten = await forgetScheduledProject(kv, path);
          io.out(
            forgotten ? `The clock no longer ticks ${path}` : `${path} was not on the clock's list`,
          );
          return 0;
        }
        const projects = await listScheduledProjects(kv);
        if (projects.length === 0) io.out("No project is on the clock's list.");
        for (const project of projects) {
          let gone = false;
          try {
            gone = !(await Deno.stat(project.path)).isDirectory;
          } catch {
            gone = true;
          }
          io.out(gone ? `${project.path}  (the folder is gone)` : project.path);
        }
        return 0;
      }
      case "serve": {
        const port = flags.port ? Number(flags.port) : Number(Deno.env.get("SYNC_PORT") ?? 4321);
        await serve(host, { port, log: io.out });
        return 0;
      }
      default:
        io.err(`sync: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof SyncError) {
      io.err(`sync ${command}: ${error.name}: ${error.message}`);
      return exitCodeOf(error);
    }
    io.err(`sync ${command}: unexpected failure: ${(error as Error)?.stack ?? error}`);
    return 1;
  } finally {
    await host?.close();
    kv?.close();
  }
}

async function describeInstalled(host: Host, project: string, id: string): Promise<string> {
  const serving = await readServingState(host.kv, project, id);
  if (serving.state === "not-on-machine") {
    return `${id}  not on this machine: install it here to use it`;
  }
  if (serving.state === "cannot-load") return `${id}  cannot load: ${serving.message}`;
  const { version, name, permissions } = serving.current.manifest;
  const state = describeServingState(serving);
  const perms = permissions.map((p) => `\n    ${p} — ${describePermission(p)}`).join("");
  return `${id}@${version}  ${name}  [${serving.current.ref.source}]  ${state}${perms}`;
}

/**
 * The project a person named: its real path, or for a folder that is gone,
 * the path as given when the installation still remembers it (its receipts
 * stay readable).
 */
async function knownProjectPath(kv: Deno.Kv, dir: string): Promise<string> {
  try {
    return await resolveProjectDir(dir);
  } catch (error) {
    const path = resolve(dir);
    if (await readProject(kv, path) || await isScheduledProject(kv, path)) return path;
    throw error;
  }
}

/**
 * The project a person named, or, when its folder is gone but the clock still
 * has it, an error that says what to do about it.
 */
async function projectOrWhereItWent(kv: Deno.Kv, dir: string): Promise<string> {
  try {
    return await resolveProjectDir(dir);
  } catch (error) {
    const path = resolve(dir);
    if (!await isScheduledProject(kv, path)) throw error;
    throw new NotFoundError(
      `The folder ${path} is gone; the clock still has it on its list and passes it over. ` +
        `Open the project where it is now (sync open --project <dir>), and take the old ` +
        `place off the list: sync projects forget ${path}`,
    );
  }
}

/**
 * A package's clock can be switched in a project it is installed in, when it
 * has a schedule (or its manifest cannot be read now, so nobody can tell).
 */
async function assertSwitchable(host: Host, project: string, id: string): Promise<void> {
  const ids = (await readProject(host.kv, project))?.extensionIds ?? [];
  if (!ids.includes(id) && !(await readDeclaredIds(project)).includes(id)) {
    throw new NotFoundError(`${id} is not installed in ${project}`);
  }
  const ref = await readPackageRef(host.kv, id);
  let scheduled = true;
  try {
    if (ref) scheduled = (await loadPackage(ref)).manifest.schedule.length > 0;
  } catch { /* unreadable: let the person switch it */ }
  if (!scheduled) {
    throw new InvalidInputError(`${id} has no schedule, so there is no clock to switch`);
  }
}

/** `2030-01-01T09:00:00.000Z` → `2030-01-01 09:00:00Z`. */
function shortTime(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d{3}Z$/, "Z");
}

function need(value: string | undefined, message: string): string {
  if (!value) throw new InvalidInputError(message);
  return value;
}

function needProject(project: string | undefined): string {
  return need(project, "--project <dir> is required");
}

function defaultIo(): Io {
  return { out: (line) => console.log(line), err: (line) => console.error(line) };
}
