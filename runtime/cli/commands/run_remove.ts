/**
 * What `sync remove` does, in the installation's owner: removes a package
 * from a project, after its removed handler, and says what ran.
 *
 * @module
 */
import { LifecycleFailedError } from "../../errors.ts";
import { printable } from "../../internal/printable.ts";
import { removePackage } from "../../lifecycle/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/**
 * Runs `sync remove`.
 *
 * @param request The package id, the project folder (resolved from where the person typed the
 *   command), and whether to remove it even when its removed handler fails.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runRemove(
  { id, project, force }: { id: string; project: string; force?: boolean },
  context: CommandContext,
): Promise<number> {
  const { io } = context;
  return await withHost(context, async (host) => {
    const result = await removePackage(host, id, project, { force }).catch(
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
