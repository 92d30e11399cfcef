/**
 * What `sync devices` does, in the installation's owner: through the
 * serve's task runner when a serve runs the command, else through a runner
 * of this process's own, not started (it runs what is asked, nothing by itself).
 *
 * @module
 */
import {
  type Account,
  type AccountInput,
  describeCoverage,
  type DeviceView,
  TaskRunner,
} from "../../applets/mod.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../../errors.ts";
import { commandLine } from "../../packages/mod.ts";
import { readDeclaredIds, resolveProjectDir } from "../../projects/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";
import type { DevicesRequest } from "./devices_request.ts";

/**
 * Runs `sync devices`.
 *
 * @param request What to do, to which device, in which project.
 * @param context Where it writes, how it reaches the installation, and the credential given.
 * @returns The exit code.
 */
export async function runDevices(
  request: DevicesRequest,
  context: CommandContext,
): Promise<number> {
  return await withHost(context, async (host) => {
    const project = await resolveProjectDir(request.dir);
    const access = context.installation;
    const served = access?.kind === "served" ? access.tasks : undefined;
    // A runner of this command's own is not started: it reads nothing by itself.
    const started = served !== undefined;
    const runner = served ?? new TaskRunner(host, { log: (line) => context.io.err(line) });
    const { io } = context;
    const id = request.id!;
    if (request.action !== "list") await refuseWhatCannotBe(request.action, project, id, runner);
    switch (request.action) {
      case "list": {
        const devices = await runner.list(project);
        if (request.json) io.out(JSON.stringify(devices, null, 2));
        else if (devices.length === 0) io.out(`No device in ${project}`);
        else for (const device of devices) io.out(describeDevice(device, project));
        return 0;
      }
      case "connect": {
        let input: AccountInput;
        if (request.folder !== undefined) input = { kind: "folder", folder: request.folder };
        else {
          if (context.secret === undefined) {
            throw new InvalidInputError(`Cannot connect ${id}'s account: no credential was given`);
          }
          input = { kind: "remote", origin: request.origin!, credential: context.secret };
        }
        const before = await runner.view(project, id);
        const account = await runner.connect(project, id, input);
        const replaced = before.account && accountWhere(before.account) !== accountWhere(account)
          ? ` (in place of ${accountWhere(before.account)})`
          : "";
        io.out(`Connected ${id}'s account: ${accountWhere(account)}${replaced}`);
        io.out(nextRead(before, started, project));
        return 0;
      }
      case "disconnect": {
        const { account } = await runner.view(project, id);
        const had = await runner.disconnect(project, id);
        if (!had || !account) io.out(`${id} had no account connected`);
        else {
          io.out(
            `Disconnected ${id}'s account ${accountWhere(account)}` +
              (account.kind === "remote" ? "; its credential is forgotten" : "") +
              `; what it read stays in the project's records`,
          );
        }
        return 0;
      }
      case "reset": {
        const before = await runner.view(project, id);
        const { records } = await runner.reset(project, id);
        const again =
          before.account && readsByItself(before) && before.state !== "paused" && started
            ? ", and it reads it again from the start now"
            : "";
        io.out(`Reset ${id}: ${records} records it read removed; its account stays${again}`);
        return 0;
      }
      case "pause":
        await runner.pause(project, id);
        io.out(`Paused ${id}: what it read stays; nothing runs until you resume it`);
        return 0;
      case "resume":
        await runner.resume(project, id);
        io.out(`Resumed ${id}`);
        return 0;
      case "review": {
        const before = await runner.view(project, id);
        if (!before.notice && !before.tasks.some((task) => task.parkedUntilReview)) {
          io.out(`${id} has no failed run to review`);
          return 0;
        }
        await runner.review(project, id);
        io.out(`Marked ${id}'s failed run reviewed; it runs again when due`);
        return 0;
      }
      case "run": {
        const attempt = await runner.runTask(project, id, request.task!, { trigger: "person" });
        const covered = attempt.coverage ? ` (${describeCoverage(attempt.coverage)})` : "";
        io.out(`${id} ${attempt.task}: ${attempt.outcome}${covered}`);
        if (attempt.error) io.err(attempt.error);
        return attempt.outcome === "ok" ? 0 : 1;
      }
      case "consent": {
        if (request.endpoint === null) {
          const had = await runner.revokeConsent(project, id);
          io.out(had ? `${id}'s content is no longer processed` : `${id} had no consent given`);
        } else {
          const consent = await runner.grantConsent(project, id, request.endpoint!);
          io.out(`${id}'s content may be processed at ${consent.endpoint}`);
        }
        return 0;
      }
    }
  });
}

/**
 * One device in a line or a few: what it is, its state, its account, its
 * last read, and, when no account is connected, the command that connects one.
 */
function describeDevice(device: DeviceView, project: string): string {
  const account = device.account ? accountWhere(device.account) : device.url ?? "no account";
  const lines = [`${device.id}  ${device.name}  ${device.state}  ${account}`];
  if (device.notice) lines.push(`  ${device.notice.message}`);
  if (!device.account && device.accepts) {
    const flag = device.accepts.kind === "folder" ? "--folder <dir>" : "--origin <https://host>";
    lines.push(
      `  to connect it (${device.accepts.description}): sync devices connect ${device.id} ${flag} ` +
        `--project ${commandLine(project, [])}`,
    );
  }
  if (device.lastRead) {
    lines.push(
      `  last read ${new Date(device.lastRead.at).toISOString()}: ${
        describeCoverage(device.lastRead.coverage)
      }`,
    );
  }
  return lines.join("\n");
}

/** Where an account reads: a folder's path or a remote's origin, never its credential. */
function accountWhere(account: Account): string {
  return account.kind === "folder" ? account.folder : account.origin;
}

/** Whether the device reads without being asked: on its schedule or when its folder changes. */
function readsByItself(device: DeviceView): boolean {
  return device.modes.includes("scheduled") || device.modes.includes("observation");
}

/**
 * What happens next after a connect, with the command to type: a runner of
 * the command's own (no serve) runs only what is asked, so it reads nothing by itself.
 */
function nextRead(device: DeviceView, started: boolean, project: string): string {
  const where = `--project ${commandLine(project, [])}`;
  if (device.state === "paused") {
    return `It is paused: it reads nothing until sync devices resume ${device.id} ${where}`;
  }
  if (readsByItself(device) && started) {
    return `It reads it now, then by itself; sync devices ${where} shows how the read went`;
  }
  if (readsByItself(device)) {
    return `It reads by itself while sync serve runs; to read it now: ` +
      `sync devices run ${device.id} ${where}`;
  }
  return `Read it with sync devices run ${device.id} ${where}`;
}

/**
 * Refuses, in a person's words, what the runner's own refusal would say less
 * plainly: a package not installed in the project (not "declares no device"),
 * and pausing, resetting or running a website, which reads nothing.
 */
async function refuseWhatCannotBe(
  action: DevicesRequest["action"],
  project: string,
  id: string,
  runner: TaskRunner,
): Promise<void> {
  if (!(await readDeclaredIds(project)).includes(id)) {
    throw new NotFoundError(
      `${id} is not installed in ${project}; sync list --project ${
        commandLine(project, [])
      } shows what is`,
    );
  }
  if (action !== "pause" && action !== "reset" && action !== "run") return;
  const device = await runner.view(project, id);
  if (!device.modes.every((mode) => mode === "website")) return;
  throw new ConflictError(
    `Cannot ${action} ${id}: ${device.name} is a website and reads nothing; ` +
      `open ${device.url ?? "its link"} instead`,
  );
}
