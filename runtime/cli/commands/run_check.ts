/**
 * What `sync check` does: builds a package, checks it, and prints each
 * problem with a hint under it, or the whole report as JSON.
 *
 * @module
 */
import { resolve } from "node:path";
import { checkPackage, formatProblem } from "../../author/mod.ts";
import { NotFoundError } from "../../errors.ts";
import type { CommandContext } from "../command.ts";
import { formatBytes } from "../format_bytes.ts";

/**
 * Runs `sync check [dir] [--json]`.
 *
 * @param request The folder as typed (absent for the current one), and whether to print JSON.
 * @param context Where it writes, and the folder relative paths start from.
 * @returns 0 when the package is clean, else 1.
 */
export async function runCheck(
  { dir: given, json }: { dir?: string; json: boolean },
  context: CommandContext,
): Promise<number> {
  const { io, cwd } = context;
  const dir = resolve(cwd, given ?? ".");
  try {
    await Deno.stat(resolve(dir, "manifest.json"));
  } catch {
    const folder = await Deno.stat(dir).then((info) => info.isDirectory, () => false);
    const what = folder ? "it has no manifest.json" : "no such folder";
    const hint = folder
      ? "run check in a package folder, or name one"
      : "name a package folder (one holding manifest.json)";
    if (!json) throw new NotFoundError(`Cannot check ${dir}: ${what}; ${hint}`);
    io.out(JSON.stringify({
      ok: false,
      problems: [{
        rule: "manifest-json",
        file: "manifest.json",
        message: `Cannot check ${dir}: ${what}`,
        hint,
      }],
      build: { outputs: [] },
      warnings: [],
    }));
    return 1;
  }
  let report;
  try {
    report = await checkPackage(dir);
  } catch (error) {
    // Whatever stopped the check is said as the check's own failure, not as a crash.
    const message = error instanceof Error ? error.message : String(error);
    io.err(`sync check: Cannot check ${dir}: ${message}`);
    return 1;
  }
  if (json) {
    io.out(JSON.stringify(report, null, 2));
    return report.ok ? 0 : 1;
  }
  for (const output of report.build.outputs) {
    io.out(`Built ${output.output} from ${output.source} (${formatBytes(output.bytes)})`);
  }
  for (const problem of report.problems) io.out(formatProblem(problem));
  // A warning does not fail the check: shown after the problems, and not counted.
  for (const warning of report.warnings) io.out(`warning: ${formatProblem(warning)}`);
  const count = report.problems.length;
  io.out(
    count === 0
      ? `${dir}: no problems`
      : `${dir}: ${count} problem${count === 1 ? "" : "s"}; fix ${
        count === 1 ? "it" : "them"
      } and run check again`,
  );
  return count === 0 ? 0 : 1;
}
