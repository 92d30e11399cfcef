/**
 * What `sync open` does, in the installation's owner: opens a project as the
 * app does, and says what it found and ran.
 *
 * @module
 */
import { printable } from "../../internal/printable.ts";
import { openProject } from "../../lifecycle/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/**
 * Runs `sync open`.
 *
 * @param dir The project folder, resolved from where the person typed the command.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runOpen(dir: string, context: CommandContext): Promise<number> {
  const { io } = context;
  return await withHost(context, async (host) => {
    // The person's home folder is never a project; the app refuses it by the same rule.
    const result = await openProject(host, dir);
    const ids = result.project.extensionIds;
    io.out(
      `Opened ${result.project.path}: ${
        ids.length ? `${ids.length} installed (${ids.join(", ")})` : "nothing installed"
      }${result.scheduled ? "; on the clock's scheduled list" : ""}`,
    );
    for (const run of result.opened) {
      if (run.outcome === "ok") io.out(`  ${run.handler} (opened): ok`);
      else {
        io.err(
          `  ${run.handler} (opened) failed: ${printable(run.error!.message)}`,
        );
      }
    }
    for (const { packageId, message } of result.unavailable) {
      io.err(`  ${packageId} cannot serve here: ${printable(message)}`);
    }
    return 0;
  });
}
