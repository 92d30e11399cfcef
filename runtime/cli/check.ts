/**
 * `deno task check [dir] [--json]`: builds a package, checks it, prints each
 * problem as `file:line:col  message` with a hint under it, and exits 0 only
 * when the package is clean. `--json` prints the whole report for tools.
 * A relative folder is taken from where the author ran `deno task`
 * (`INIT_CWD`), not from this repository.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { checkPackage, formatProblem } from "../author/check/check.ts";
import { SyncError } from "../errors.ts";
import { type AuthorIo, formatBytes } from "./author.ts";

/** Where the check command writes: the same as the other author commands. */
export type CheckIo = AuthorIo;

/** Options for {@linkcode runCheckCli}. */
export interface CheckCliOptions {
  /** The folder relative paths start from; default `INIT_CWD`, else the current folder. */
  cwd?: string;
  io?: CheckIo;
}

const USAGE = `Usage: check [dir] [--json]

Builds the package in dir (default: the current folder), then checks its
manifest, the files it names, its service source against the isolate's
globals, and its built service module in a stand-in host. Prints every
problem with file:line:col and a hint; exits 0 only when there are none.

  --json   Print the report as JSON: { ok, problems, build }.`;

/**
 * Runs `check` and returns the exit code: 0 clean, 1 problems found (or the
 * check could not run), 2 bad usage.
 *
 * @param args The arguments after `check`, such as `["extensions/issues", "--json"]`.
 * @example
 * ```ts
 * Deno.exit(await runCheckCli(["extensions/hello"]));
 * ```
 */
export async function runCheckCli(args: string[], options: CheckCliOptions = {}): Promise<number> {
  const io = options.io ?? { out: (line) => console.log(line), err: (line) => console.error(line) };
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    io.err(`sync check: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    io.out(USAGE);
    return 0;
  }
  if (parsed.positionals.length > 1) {
    io.err(`sync check: takes one package folder, got ${parsed.positionals.length}\n\n${USAGE}`);
    return 2;
  }
  const dir = resolve(options.cwd ?? startFolder(), parsed.positionals[0] ?? ".");
  try {
    await Deno.stat(resolve(dir, "manifest.json"));
  } catch {
    const folder = await Deno.stat(dir).then((info) => info.isDirectory, () => false);
    const message = folder
      ? `${dir} has no manifest.json; run check in a package folder, or name one`
      : `Cannot check ${dir}: no such folder; name a package folder`;
    if (parsed.values.json) {
      io.out(JSON.stringify({
        ok: false,
        problems: [{
          rule: "manifest-json",
          file: "manifest.json",
          message: "manifest.json is missing",
          hint: message,
        }],
        build: { outputs: [] },
      }));
    } else io.err(`sync check: ${message}`);
    return 1;
  }
  let report;
  try {
    report = await checkPackage(dir);
  } catch (error) {
    const what = error instanceof SyncError ? `${error.name}: ${error.message}` : String(error);
    io.err(`sync check: cannot check ${dir}: ${what}`);
    return 1;
  }
  if (parsed.values.json) {
    io.out(JSON.stringify(report, null, 2));
    return report.ok ? 0 : 1;
  }
  for (const output of report.build.outputs) {
    io.out(`Built ${output.output} from ${output.source} (${formatBytes(output.bytes)})`);
  }
  for (const problem of report.problems) io.out(formatProblem(problem));
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

function startFolder(): string {
  try {
    return Deno.env.get("INIT_CWD") ?? Deno.cwd();
  } catch {
    return Deno.cwd();
  }
}
