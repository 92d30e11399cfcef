/**
 * What `sync devices` does, in the installation's owner: through the
 * serve's task runner when a serve runs the command, else through a runner
 * of this process's own, not started (it runs what is asked, nothing by itself).
 *
 * @module
 */
import {
  type AccountInput,
  describeCoverage,
  type DeviceView,
  TaskRunner,
} from "../../applets/mod.ts";
import { InvalidInputError } from "../../errors.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
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
    const runner = (access?.kind === "served" ? access.tasks : undefined) ??
      new TaskRunner(host, { log: (line) => context.io.err(line) });
    const { io } = context;
    const id = request.id!;
    switch (request.action) {
      case "list": {
        const devices = await runner.list(project);
        if (request.json) io.out(JSON.stringify(devices, null, 2));
        else if (devices.length === 0) io.out(`No device in ${project}`);
        else for (const device of devices) io.out(describeDevice(device));
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
        const account = await runner.connect(project, id, input);
        io.out(
          `Connected ${id}'s account: ` +
            (account.kind === "folder" ? account.folder : account.origin),
        );
        return 0;
      }
      case "disconnect": {
        const had = await runner.disconnect(project, id);
        io.out(
          had
            ? `Disconnected ${id}'s account; its credential is forgotten`
            : `${id} had no account connected`,
        );
        return 0;
      }
      case "reset": {
        const { records } = await runner.reset(project, id);
        io.out(`Reset ${id}: ${records} records it read removed; its account stays`);
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
      case "review":
        await runner.review(project, id);
        io.out(`Marked ${id}'s failed run reviewed; it runs again when due`);
        return 0;
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

/** One device in a line or a few: what it is, its state, its account and its last read. */
function describeDevice(device: DeviceView): string {
  const account = device.account
    ? device.account.kind === "folder" ? device.account.folder : device.account.origin
    : device.url ?? "no account";
  const lines = [`${device.id}  ${device.name}  ${device.state}  ${account}`];
  if (device.notice) lines.push(`  ${device.notice.message}`);
  if (device.lastRead) {
    lines.push(
      `  last read ${new Date(device.lastRead.at).toISOString()}: ${
        describeCoverage(device.lastRead.coverage)
      }`,
    );
  }
  return lines.join("\n");
}
