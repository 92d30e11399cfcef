/**
 * `check [dir] [--json]`: builds a package, checks it, prints each problem as
 * `file:line:col  message` with a hint under it, and exits 0 only when the
 * package is clean. `--json` prints the whole report for tools. A relative
 * folder is taken from where the author ran `deno task` (the context's
 * `cwd`), not from this repository.
 *
 * @module
 */
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";

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
  prepare: prepareCheck,
};

function prepareCheck({ args, flags }: CommandWords<typeof OPTIONS>): PreparedCommand {
  const dir = args[0];
  const json = flags.json === true;
  return async (context) => (await import("./run_check.ts")).runCheck({ dir, json }, context);
}
