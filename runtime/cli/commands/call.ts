/**
 * `sync call`: call a handler as a person, and print its JSON answer. Its
 * receipt says the person called it from the command line.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import { isPackageId, runNowRefusal, servingPackage } from "../../packages/mod.ts";
import { readDeclaredIds, resolveProjectDir } from "../../projects/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { need, needProject } from "../need.ts";
import { withHost } from "../with_host.ts";

const OPTIONS = {
  project: { type: "string" },
  payload: { type: "string" },
} as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "call <id> <handler> --project <dir> [--payload <json>]",
  about: "Call a handler; prints its JSON answer.",
}];

/** `sync call <id> <handler> --project <dir> [--payload <json>]`. */
export const callCommand: Command = {
  name: "call",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  run: runCall,
  touchesInstallation: true,
};

async function runCall(context: CommandContext<typeof OPTIONS>): Promise<number> {
  const { args, flags, io } = context;
  const id = need(args[0], "call needs a package id and a handler");
  const handler = need(args[1], "call needs a handler name after the package id");
  let payload: unknown = null;
  if (flags.payload !== undefined) {
    try {
      payload = JSON.parse(flags.payload);
    } catch (error) {
      throw new InvalidInputError(`--payload is not JSON: ${(error as Error).message}`);
    }
  }
  const project = needProject(flags.project, context.cwd);
  return await withHost(context, async (host) => {
    await refuseByHand(host.kv, project, id, handler);
    const { value } = await host.callHandler(project, id, handler, {
      occasion: { kind: "extension" },
      source: { kind: "person", via: "cli" },
      payload,
    });
    io.out(JSON.stringify(value));
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
