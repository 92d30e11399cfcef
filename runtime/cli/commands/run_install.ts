/**
 * What `sync install` does, in the installation's owner: installs a package
 * into a project and reports what it did; a refusal names the command the
 * person typed, with the word it needs added.
 *
 * @module
 */
import { commandLine, type Manifest } from "../../packages/mod.ts";
import { installPackage, installReport } from "../../lifecycle/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/** What `sync install` was asked, read from its words. */
export interface InstallRequest {
  /** The package folder or archive, resolved from where the person typed the command. */
  source: string;
  /** The project folder, resolved likewise. */
  project: string;
  /** The words as typed, to name the command again in a refusal. */
  typed: { source: string; project?: string; approve?: boolean; replace?: boolean };
}

/**
 * Runs `sync install`.
 *
 * @param request What was asked.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runInstall(
  { source, project, typed }: InstallRequest,
  context: CommandContext,
): Promise<number> {
  // The command as the person typed it, with the word a refusal asks for added.
  const typedWith = (added: "approve" | "replace") => {
    const words = ["install", typed.source];
    if (typed.project !== undefined) words.push("--project", typed.project);
    for (const flag of ["approve", "replace"] as const) {
      if (typed[flag] || flag === added) words.push(`--${flag}`);
    }
    return `sync ${commandLine(words[0], words.slice(1))}`;
  };
  return await withHost(context, async (host) => {
    const result = await installPackage(host, source, project, {
      approve: typed.approve,
      replace: typed.replace,
      confirm: { approve: typedWith("approve"), replace: typedWith("replace") },
    });
    for (const line of installReport(result)) context.io.out(line);
    const next = connectHint(result.package.manifest, result.project);
    if (next) context.io.out(next);
    return 0;
  });
}

/**
 * The next step after installing an applet: installing never connects its
 * account, so without this line a person sees it installed and nothing read.
 */
function connectHint(manifest: Manifest, project: string): string | null {
  const account = manifest.device?.account;
  if (!account) return null;
  const flag = account.kind === "folder" ? "--folder <dir>" : "--origin <https://host>";
  return `It reads nothing until you connect its account (${account.description}): ` +
    `sync devices connect ${manifest.id} ${flag} --project ${commandLine(project, [])}`;
}
