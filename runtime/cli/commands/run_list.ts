/**
 * What `sync list` does, in the installation's owner: one entry per package
 * a project declares (`describe_installed.ts`).
 *
 * @module
 */
import { readDeclaredIds, resolveProjectDir } from "../../projects/mod.ts";
import type { CommandContext } from "../command.ts";
import { describeInstalled } from "../describe_installed.ts";
import { withHost } from "../with_host.ts";

/**
 * Runs `sync list`.
 *
 * @param dir The project folder, resolved from where the person typed the command.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runList(dir: string, context: CommandContext): Promise<number> {
  const { io } = context;
  return await withHost(context, async (host) => {
    // A read: it does not open the project (that is `sync open`).
    const project = await resolveProjectDir(dir);
    const ids = await readDeclaredIds(project);
    if (ids.length === 0) io.out("Nothing is installed in this project.");
    for (const id of ids) io.out(await describeInstalled(host.kv, project, id, { now: host.now }));
    return 0;
  });
}
