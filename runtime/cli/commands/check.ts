/**
 * `check [dir] [--json]`: builds a package, checks it, prints each problem as
 * `file:line:col  message` with a hint under it, and exits 0 only when the
 * package is clean. `--json` prints the whole report for tools. A relative
 * folder is taken from where the author ran `deno task` (the context's
 * `cwd`), not from this repository.
 *
 * @module
 */
import { resolve } from "node:path";
import { checkPackage, formatProblem } from "../../author/mod.ts";
import { NotFoundError } from "../../errors.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatBytes } from "../format_bytes.ts";

const USAGE = `Usage: check [dir] [--json]

Builds the package in dir (default: the current folder), then checks its
manifest, the files it names, its service source against the isolate's
globals, and its built service module in a stand-in host. Prints every
problem with file:line:col and a hint; exits 0 only when there are none.

  --json   Print the report as JSON: { ok, problems, build }.`;

const OPTIONS = { json: { type: "boolean" } } as const;

const SUMMARY: readonly CommandSummary[] = [{
  synopsis: "check [dir] [--json]",
  about: "Build a package, then check it; exits 0 only when clean.",
}];

/**
 * `sync check [dir] [--json]` (`deno task check`): exit 0 clean, 1 problems
 * found (or the check could not run), 2 bad usage.
 */
export const checkCommand: Command = {
  name: "check",
  summary: SUMMARY,
  usage: USAGE,
  options: OPTIONS,
  run: runCheck,
};

async function runCheck({ args, flags, io, cwd }: CommandContext<typeof OPTIONS>): Promise<number> {
  const dir = resolve(cwd, args[0] ?? ".");
  try {
    await Deno.stat(resolve(dir, "manifest.json"));
  } catch {
    const folder = await Deno.stat(dir).then((info) => info.isDirectory, () => false);
    const what = folder ? "it has no manifest.json" : "no such folder";
    const hint = folder
      ? "run check in a package folder, or name one"
      : "name a package folder (one holding manifest.json)";
    if (!flags.json) throw new NotFoundError(`Cannot check ${dir}: ${what}; ${hint}`);
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
  if (flags.json) {
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
