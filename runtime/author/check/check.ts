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
 *   handlers;
 * - the screen source (`src/index.tsx`) type-checks against a browser frame's
 *   globals and `@sync/extension-api/ui`, and the built screen (the file `ui`
 *   names) is one module that imports nothing, exports `activate`, makes no
 *   code from strings, and reaches for no global a screen's frame lacks.
 *
 * Install refuses what check reports, in the same words: a folder through
 * `checkPackage` (built first, as here), an archive through
 * {@linkcode checkBuiltPackage} (its built files are what it ships).
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { originalPlace, type SourceMap } from "../source_map.ts";
import { BuildError } from "../../errors.ts";
import {
  isIsolateGlobal,
  IsolatePool,
  missingGlobalHint,
  SERVICE_API_SPECIFIER,
} from "../../isolate/mod.ts";
import type { HandlerLimits } from "../../limits.ts";
import { type Manifest, readPackageText } from "../../packages/mod.ts";
import { checkFiles, checkManifest } from "./_manifest.ts";
import { type ModuleScan, scanModule, WHOLE_API } from "./_scan.ts";
import { standInProblems } from "./_stand_in.ts";
import { SCREEN_SOURCE, SERVICE_SOURCE, typeCheckScreen, typeCheckService } from "./_types.ts";
import { screenProblems } from "./_screen.ts";
import { buildPackage, type BuildResult } from "../build.ts";
import { serviceParseWarning } from "../parse_cost.ts";
import type { CheckProblem } from "./problem.ts";

/** Options for {@linkcode checkBuiltPackage} and `checkPackage`. */
export interface CheckOptions {
  /** The isolate pool the stand-in host runs in; one is started and closed when absent. */
  pool?: IsolatePool;
  /** Limits for the stand-in host's run; the host's own by default. */
  limits?: HandlerLimits;
  /** The `deno` executable that builds and type-checks; defaults to the running one. */
  deno?: string;
  /**
   * How a hint names the package folder in a command to run (`deno task --cwd
   * <checkout> build <folder>`); `dir` made absolute by default. Install names
   * an archive's source folder, not the staging folder it checks.
   */
  folder?: string;
}

/** What `checkPackage` found, and what its build wrote. */
export interface CheckReport {
  /** True when there are no problems. */
  ok: boolean;
  /** Every problem, in the order check prints them. */
  problems: CheckProblem[];
  /**
   * What is worth knowing but does not fail the check, in the same shape:
   * a service module large enough that parsing it costs each call
   * (`large-service`).
   */
  warnings: CheckProblem[];
  /** What the build wrote before checking; empty when the build itself failed. */
  build: BuildResult;
}

/**
 * Builds a package and checks everything: the manifest and what it names, the
 * service source type-checked against the isolate's globals, and the built
 * module (see {@linkcode checkBuiltPackage}).
 *
 * @param dir The package folder (holding `manifest.json`).
 * @param options The isolate pool and limits the stand-in host runs in, and the `deno` that
 *   builds and type-checks.
 * @returns Every problem found and what the build wrote; `ok` only when clean.
 * @example
 * ```ts
 * const report = await checkPackage("extensions/issues");
 * if (!report.ok) for (const p of report.problems) console.log(formatProblem(p));
 * ```
 */
export async function checkPackage(dir: string, options: CheckOptions = {}): Promise<CheckReport> {
  let build: BuildResult = { outputs: [] };
  const maps = new Map<string, SourceMap>();
  try {
    build = await buildPackage(dir, {
      deno: options.deno,
      onSourceMap: (output, map) => maps.set(output, map),
    });
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    const read = await checkManifest(dir);
    const problems: CheckProblem[] = inCheckOrder(read.problems);
    if (!(error.file === "manifest.json" && read.problems.length > 0)) {
      problems.push({
        rule: "build",
        file: error.file,
        ...(error.line !== undefined ? { line: error.line, column: error.column ?? 1 } : {}),
        message: error.message,
        hint: buildHint(error),
      });
    }
    return { ok: false, problems, build, warnings: [] };
  }
  const typeProblems = [
    ...await typeCheckService(dir, { deno: options.deno }),
    ...await typeCheckScreen(dir, { deno: options.deno }),
  ];
  const built = await checkBuiltPackage(dir, options);
  const fromSource = build.outputs.find((o) => o.source === SERVICE_SOURCE);
  let sourceText: string | undefined;
  if (fromSource) sourceText = await Deno.readTextFile(join(dir, SERVICE_SOURCE));
  const map = fromSource ? maps.get(fromSource.output) : undefined;
  const reported = new Set(
    typeProblems.map((p) => /^(\S+) is not a global in the isolate/.exec(p.message)?.[1]),
  );
  const problems: CheckProblem[] = [];
  for (const problem of built) {
    if (!fromSource || problem.file !== fromSource.output) {
      // A problem in the built screen is shown where its source map says it came from.
      const screen = build.outputs.find((o) => o.source === SCREEN_SOURCE);
      const screenMap = screen && problem.file === screen.output
        ? maps.get(screen.output)
        : undefined;
      const at = screenMap && problem.line !== undefined
        ? originalPlace(screenMap, problem.line, problem.column ?? 1)
        : undefined;
      problems.push(at && !isAbsolute(at.file) ? { ...problem, ...at } : problem);
      continue;
    }
    // The type-check already named it in the source, at the author's own line.
    const name = problem.rule === "free-global"
      ? /^uses ([\w$]+)/.exec(problem.message)?.[1]
      : undefined;
    if (name !== undefined && reported.has(name)) continue;
    // register() problems belong at the author's `export default`.
    if (/^(register|handler-not-declared|handler-not-function)$/.test(problem.rule)) {
      const atExport = problem.line !== undefined && sourceText !== undefined
        ? locateDefaultExport(sourceText)
        : undefined;
      if (atExport) {
        problems.push({ ...problem, file: SERVICE_SOURCE, ...atExport });
        continue;
      }
    }
    // Anything else at a place in the built module is shown where its source map says it came from.
    const place = map && problem.line !== undefined
      ? originalPlace(map, problem.line, problem.column ?? 1)
      : undefined;
    problems.push(place && !isAbsolute(place.file) ? { ...problem, ...place } : problem);
  }
  const all = inCheckOrder([...problems, ...typeProblems]);
  const warnings = build.outputs.map(serviceParseWarning).filter((w) => w !== null);
  return { ok: all.length === 0, problems: all, build, warnings };
}

/** What to do about a build that failed, for the source it was building. */
function buildHint(error: BuildError): string {
  if (error.message.startsWith(`Cannot build ${SCREEN_SOURCE}:`)) {
    return `the build bundles ${SCREEN_SOURCE}, and the package's own files and npm packages ` +
      `it imports, into ` +
      "the manifest's ui file, leaving nothing to import at run time; fix what it reports " +
      "and run check again";
  }
  return `the build bundles ${SERVICE_SOURCE}, and the package's own files and npm packages ` +
    `it imports, into ` +
    `the manifest's service file, leaving only "${SERVICE_API_SPECIFIER}" to the host; fix ` +
    "what it reports and run check again";
}

/**
 * Problems in the order check shows them (and install, in the same words):
 * the manifest and the files it names, then type errors, then the rest; in
 * each group a file's problems together, from its first line to its last
 * (a problem with no place first), files in the order found.
 */
function inCheckOrder(problems: CheckProblem[]): CheckProblem[] {
  const rank = (p: CheckProblem) =>
    p.file === "manifest.json" || p.rule.endsWith("-file") ? 0 : p.rule === "type-error" ? 1 : 2;
  const firstSeen = new Map<string, number>();
  problems.forEach((p, i) => {
    if (!firstSeen.has(`${rank(p)} ${p.file}`)) firstSeen.set(`${rank(p)} ${p.file}`, i);
  });
  const fileOf = (p: CheckProblem) => firstSeen.get(`${rank(p)} ${p.file}`)!;
  return problems
    .map((problem, i) => ({ problem, i }))
    .sort((a, b) =>
      rank(a.problem) - rank(b.problem) || fileOf(a.problem) - fileOf(b.problem) ||
      (a.problem.line ?? 0) - (b.problem.line ?? 0) ||
      (a.problem.column ?? 0) - (b.problem.column ?? 0) || a.i - b.i
    )
    .map(({ problem }) => problem);
}

/** Where a source writes `export default`. */
function locateDefaultExport(text: string): { line: number; column: number } | undefined {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const match = /^(\s*)export\s+default\b/.exec(lines[i]);
    if (match) return { line: i + 1, column: match[1].length + 1 };
  }
  return undefined;
}

/**
 * Checks an already built package: the manifest and what it names, the built
 * service module's imports, globals and API use, and its `register()` in the
 * stand-in host. No build, no type-check.
 *
 * @param dir The package folder (holding `manifest.json`).
 * @param options The isolate pool and limits the stand-in host runs in.
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
  const problems = await builtProblems(dir, options);
  if (!problems.some((p) => p.file === "manifest.json" || p.rule === "ui-file")) {
    const read = await checkManifest(dir);
    if (read.manifest?.ui) problems.push(...await screenProblems(dir, read.manifest.ui));
  }
  return inCheckOrder(problems);
}

async function builtProblems(
  dir: string,
  options: CheckOptions = {},
): Promise<CheckProblem[]> {
  const read = await checkManifest(dir);
  if (!read.manifest || read.places === undefined) return read.problems;
  const manifest = read.manifest;
  const problems = await checkFiles(dir, manifest, read.places, options.folder);
  if (!manifest.service || problems.some((p) => p.rule === "service-file")) return problems;

  const service = manifest.service;
  const source = await readPackageText(dir, service);
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
  const scanned = scanProblems(manifest, scan, source);
  problems.push(...scanned);
  if (scanned.some((p) => p.rule === "foreign-import")) return problems;

  const pool = options.pool ?? new IsolatePool({ size: 1 });
  try {
    problems.push(
      ...await standInProblems(manifest, source, {
        pool,
        limits: options.limits,
        manifestPlaces: read.places,
        defaultExport: scan.defaultExport,
        namedRegister: scan.namedExports.get("register"),
      }),
    );
  } finally {
    if (!options.pool) pool.close();
  }
  return problems;
}

/**
 * The npm package a line of a built module belongs to: the bundler writes a
 * `// npm:name@version/file` comment (the build's form of its path) above
 * each bundled file.
 */
function bundledPackageAt(source: string, line: number): string | undefined {
  const lines = source.split("\n", line);
  for (let i = lines.length - 1; i >= 0; i--) {
    const comment = /^\/\/ (\S+)$/.exec(lines[i]);
    if (!comment) continue;
    return /^(npm:(?:@[^/\s]+\/)?[^/@\s]+@[^/\s]+)\//.exec(comment[1])?.[1];
  }
  return undefined;
}

/** Imports, free globals and API use without their permission. */
function scanProblems(manifest: Manifest, scan: ModuleScan, source: string): CheckProblem[] {
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
    const library = bundledPackageAt(source, free.line);
    problems.push({
      rule: "free-global",
      file: service,
      line: free.line,
      column: free.column,
      message: `uses ${free.name}, which the isolate does not have` +
        (library ? `, in the code of ${library}` : "") +
        (free.count > 1 ? ` (${free.count} places; the first is here)` : ""),
      hint: library
        ? `${library} needs ${free.name}, which a handler cannot have: ` +
          `${missingGlobalHint(free.name)}; choose a library that runs in a browser and needs ` +
          `nothing but the language`
        : missingGlobalHint(free.name),
    });
  }
  for (const code of scan.dynamicCode) {
    problems.push({
      rule: "dynamic-code",
      file: service,
      line: code.line,
      column: code.column,
      message: code.what === "eval"
        ? "uses eval, which runs code from a string that check cannot see into"
        : code.what === "Function"
        ? "calls the Function constructor, which makes code from a string that check cannot " +
          "see into"
        : "calls the constructor of a function, which is the Function constructor (or its " +
          "async or generator kin): it makes code from a string that check cannot see into",
      hint: "write the code in the module itself: check scans it for globals the isolate does " +
        "not have and for use of work and net, and code made from strings escapes both",
    });
  }
  const whole = scan.apiUses.get(WHOLE_API);
  const wholeWhy = (member: string) =>
    `may use ${member}: it uses the whole "${SERVICE_API_SPECIFIER}" module (a dynamic ` +
    `import of it, its namespace as a value, a computed member or export *)`;
  const work = scan.apiUses.get("work");
  if ((work || whole) && !manifest.permissions.includes("work.agent")) {
    problems.push({
      rule: "work-permission",
      file: service,
      ...(work ?? whole)!,
      message: work
        ? `uses work from "${SERVICE_API_SPECIFIER}" but the manifest does not declare ` +
          `the work.agent permission`
        : `${wholeWhy("work")}, but the manifest does not declare the work.agent permission`,
      hint: `add "work.agent" to "permissions" (the install card will say the package may ` +
        `start agent sessions that spend the person's tokens), or stop using work` +
        (work
          ? ""
          : `; import only what it uses: import { memory } from "${SERVICE_API_SPECIFIER}"`),
    });
  }
  const net = scan.apiUses.get("net");
  if ((net || whole) && !manifest.permissions.some((p) => p.startsWith("net:"))) {
    problems.push({
      rule: "net-permission",
      file: service,
      ...(net ?? whole)!,
      message: net
        ? `uses net from "${SERVICE_API_SPECIFIER}" but the manifest declares no ` +
          `net:<host> permission`
        : `${wholeWhy("net")}, but the manifest declares no net:<host> permission`,
      hint: `add "net:<host>" to "permissions" for each host it fetches from, like ` +
        `"net:api.example.com" (the install card names each host), or stop using net` +
        (net
          ? ""
          : `; import only what it uses: import { memory } from "${SERVICE_API_SPECIFIER}"`),
    });
  }
  return problems;
}
