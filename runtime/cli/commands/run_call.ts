/**
 * What `sync call` does, in the installation's owner: refuses a handler
 * Sync runs only as a package is installed or removed, calls the handler as
 * a person, and prints its JSON answer.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import { isPackageId, runNowRefusal, servingPackage } from "../../packages/mod.ts";
import { readDeclaredIds, resolveProjectDir } from "../../projects/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/** What `sync call` was asked, read from its words. */
export interface CallRequest {
  /** The package id. */
  id: string;
  /** The handler's name. */
  handler: string;
  /** The payload, as JSON read; null when none was given. */
  payload: unknown;
  /** The project folder, resolved from where the person typed the command. */
  project: string;
}

/**
 * Runs `sync call`.
 *
 * @param request What was asked.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runCall(
  { id, handler, payload, project }: CallRequest,
  context: CommandContext,
): Promise<number> {
  return await withHost(context, async (host) => {
    await refuseByHand(host.kv, project, id, handler);
    const { value } = await host.callHandler(project, id, handler, {
      occasion: { kind: "extension" },
      source: { kind: "person", via: "cli" },
      payload,
    });
    context.io.out(JSON.stringify(value));
    return 0;
  });
}

/**
 * Refuses, before anything is attempted (no receipt), a handler Sync runs as
 * the package is installed or removed, in Run now's words. A package that
 * does not serve is left to the call, which says why.
 */
async function refuseByHand(kv: Deno.Kv, dir: string, id: string, handler: string): Promise<void> {
  if (!isPackageId(id)) return;
  const project = await resolveProjectDir(dir);
  let refusal: string | null;
  try {
    const pkg = await servingPackage(kv, project, id, {
      declaredIds: await readDeclaredIds(project),
    });
    refusal = runNowRefusal(pkg.manifest, handler);
  } catch {
    return;
  }
  if (refusal !== null) throw new InvalidInputError(refusal);
}
