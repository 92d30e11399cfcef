/**
 * What `sync projects` does, in the installation's owner: lists the projects
 * the clock ticks, or takes one off its list.
 *
 * @module
 */
import { isFolder } from "../../internal/is_folder.ts";
import { forgetScheduledProject, listScheduledProjects } from "../../clock/mod.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/**
 * Runs `sync projects`, or `sync projects forget <dir>`.
 *
 * @param forget The folder to take off the clock's list, resolved from where the person typed
 *   the command; absent for the list.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runProjects(
  forget: string | undefined,
  context: CommandContext,
): Promise<number> {
  const { io } = context;
  if (forget !== undefined) {
    return await withHost(context, async (host) => {
      let path = forget;
      try {
        path = await resolveProjectDir(forget);
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
