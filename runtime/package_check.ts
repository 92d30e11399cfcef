/**
 * `deno task check`: everything that can be known about a package before it
 * runs on somebody else's machine, each problem with a file, a line and a hint.
 *
 * - the manifest against its schema and its cross references, and the files it
 *   names (`types/*.json`, `prompt`, `service`, `ui`) exist and parse;
 * - the service source type-checks against the isolate's globals only;
 * - the built module imports nothing but the extension API, reaches for no
 *   global the isolate lacks, and uses `work` and `net` only with their
 *   permissions;
 * - the built module, run in the stand-in host (the real isolate over an empty
 *   in-memory project), has a `register()` that returns exactly the declared
 *   handlers.
 *
 * Install runs {@linkcode checkBuiltPackage} and refuses what it reports, in
 * the same words.
 *
 * @module
 */
import { join } from "node:path";
import { IsolatePool } from "./isolate_pool.ts";
import { isIsolateGlobal, missingGlobalHint } from "./isolate_globals.ts";
import type { HandlerLimits } from "./limits.ts";
import type { Manifest } from "./manifest.ts";
import { SERVICE_API_SPECIFIER } from "../workers/_protocol.ts";
import { checkFiles, checkManifest } from "./_check_manifest.ts";
import { type ModuleScan, scanModule } from "./_check_scan.ts";
import { standInProblems } from "./_check_stand_in.ts";

/** One problem check found. Paths are relative to the package folder. */
export interface CheckProblem {
  /** Which rule it breaks, such as `free-global` or `schedule-handler` (docs/check.md). */
  rule: string;
  /** The file it is in, such as `manifest.json` or `service/index.js`. */
  file: string;
  /** Line, from 1, when the problem has a place in the file. */
  line?: number;
  /** Column, from 1. */
  column?: number;
  /** What is wrong. */
  message: string;
  /** What to do about it. */
  hint: string;
}

/** Options for {@linkcode checkBuiltPackage} and `checkPackage`. */
export interface CheckOptions {
  /** The isolate pool the stand-in host runs in; one is started and closed when absent. */
  pool?: IsolatePool;
  /** Limits for the stand-in host's run; the host's own by default. */
  limits?: HandlerLimits;
}

/**
 * Checks an already built package: the manifest and what it names, the built
 * service module's imports, globals and API use, and its `register()` in the
 * stand-in host. No build, no type-check.
 *
 * @param dir The package folder (holding `manifest.json`).
 * @returns Every problem found, in file order; empty when the package is clean.
 * @example
 * ```ts
 * const problems = await checkBuiltPackage("extensions/hello");
 * for (const p of problems) console.log(formatProblem(p));
 * ```
 */
export async function checkBuiltPackage(
  dir: string,
  options: CheckOptions = {},
): Promise<CheckProblem[]> {
  const read = await checkManifest(dir);
  if (!read.manifest || read.text === undefined) return read.problems;
  const manifest = read.manifest;
  const problems = await checkFiles(dir, manifest, read.text);
  if (!manifest.service || problems.some((p) => p.rule === "service-file")) return problems;

  const service = manifest.service;
  const source = await Deno.readTextFile(join(dir, service));
  const scan = scanModule(source, SERVICE_API_SPECIFIER);
  if (!("imports" in scan)) {
    problems.push({
      rule: "module-syntax",
      file: service,
      line: scan.line,
      column: scan.column,
      message: `does not parse as an ES module: ${scan.message}`,
      hint: "the isolate evaluates the service module as it is; deno task build writes it " +
        "from src/service.ts",
    });
    return problems;
  }
  const scanned = scanProblems(manifest, scan);
  problems.push(...scanned);
  if (scanned.some((p) => p.rule === "foreign-import")) return problems;

  const pool = options.pool ?? new IsolatePool({ size: 1 });
  try {
    problems.push(
      ...await standInProblems(manifest, source, {
        pool,
        limits: options.limits,
        manifestText: read.text,
        defaultExport: scan.defaultExport,
      }),
    );
  } finally {
    if (!options.pool) pool.close();
  }
  return problems;
}

/** Imports, free globals and API use without their permission. */
function scanProblems(manifest: Manifest, scan: ModuleScan): CheckProblem[] {
  const service = manifest.service!;
  const problems: CheckProblem[] = [];
  for (const found of scan.imports) {
    if (found.specifier === SERVICE_API_SPECIFIER) continue;
    const what = found.specifier === undefined
      ? "imports a computed module name"
      : `imports "${found.specifier}"${found.dynamic ? " dynamically" : ""}`;
    problems.push({
      rule: "foreign-import",
      file: service,
      line: found.line,
      column: found.column,
      message: `${what}; a service module may import only "${SERVICE_API_SPECIFIER}"`,
      hint: "bundle everything else into the module: deno task build does so for whatever " +
        "src/service.ts imports, leaving only the extension API to the host",
    });
  }
  for (const free of scan.free) {
    if (isIsolateGlobal(free.name)) continue;
    problems.push({
      rule: "free-global",
      file: service,
      line: free.line,
      column: free.column,
      message: `uses ${free.name}, which the isolate does not have` +
        (free.count > 1 ? ` (${free.count} places; the first is here)` : ""),
      hint: missingGlobalHint(free.name),
    });
  }
  const work = scan.apiUses.get("work");
  if (work && !manifest.permissions.includes("work.agent")) {
    problems.push({
      rule: "work-permission",
      file: service,
      line: work.line,
      column: work.column,
      message: `uses work from "${SERVICE_API_SPECIFIER}" but the manifest does not declare ` +
        `the work.agent permission`,
      hint: `add "work.agent" to "permissions" (the install card will say the package may ` +
        `start agent sessions that spend the person's tokens), or stop using work`,
    });
  }
  const net = scan.apiUses.get("net");
  if (net && !manifest.permissions.some((p) => p.startsWith("net:"))) {
    problems.push({
      rule: "net-permission",
      file: service,
      line: net.line,
      column: net.column,
      message: `uses net from "${SERVICE_API_SPECIFIER}" but the manifest declares no ` +
        `net:<host> permission`,
      hint: `add "net:<host>" to "permissions" for each host it fetches from, like ` +
        `"net:api.example.com" (the install card names each host), or stop using net`,
    });
  }
  return problems;
}

/**
 * One problem as the terminal shows it: `file:line:col  message` and an
 * indented hint. Install uses the same words when it refuses a package.
 *
 * @example
 * ```ts
 * formatProblem({ rule: "free-global", file: "service/index.js", line: 4, column: 7,
 *   message: "uses setTimeout, which the isolate does not have", hint: "…" });
 * // "service/index.js:4:7  uses setTimeout, which the isolate does not have\n  hint: …"
 * ```
 */
export function formatProblem(problem: CheckProblem): string {
  const place = problem.line === undefined
    ? problem.file
    : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
  return `${place}  ${problem.message}\n  hint: ${problem.hint}`;
}
