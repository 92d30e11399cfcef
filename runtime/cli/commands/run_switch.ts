/**
 * What `sync switch` does, in the installation's owner: turns a package's
 * clock off or on in a project.
 *
 * @module
 */
import { assertSwitchable, switchOff, switchOn } from "../../clock/mod.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/**
 * Runs `sync switch`.
 *
 * @param request The package id, the state asked for, and the project folder, resolved from
 *   where the person typed the command.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runSwitch(
  { id, state, dir }: { id: string; state: "off" | "on"; dir: string },
  context: CommandContext,
): Promise<number> {
  return await withHost(context, async (host) => {
    const project = await resolveProjectDir(dir);
    await assertSwitchable(host.kv, project, id);
    if (state === "off") await switchOff(host.kv, project, id, host);
    else await switchOn(host.kv, project, id, host);
    context.io.out(`${id}'s clock is ${state} for ${project}`);
    return 0;
  });
}
