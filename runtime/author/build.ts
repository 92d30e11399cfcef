/**
 * Building a package: `src/service.ts` becomes the file the manifest's
 * `service` names and `src/index.tsx` the file `ui` names, each one ES module
 * with everything bundled in except `@sync/extension-api/service`, which the
 * isolate's loader serves. A screen imports `@sync/extension-api/ui` with
 * `import type` only (everything it reaches is handed to its `activate(ctx)`,
 * the module's one value, `API_VERSION`, as `ctx.apiVersion`), so the bundle
 * holds nothing of it.
 *
 * A source may import npm packages by an exact version (`npm:ms@2.1.3`,
 * written in the import or mapped in the package's `deno.json`): the bundler
 * fetches them (Deno's cache keeps them) and bundles what they use into the
 * module. A package that still needs a Node built-in once bundled is refused,
 * naming it; a built-in the isolate lacks that a build provides as a pure
 * module (`TextDecoder`, see `polyfill/polyfills.ts`) is put in front of the
 * service module when it uses it.
 *
 * The bundler is Deno's own (`deno bundle`), run as a subprocess in the
 * package folder with a generated configuration holding the import map and
 * compiler options of the package's `deno.json` (or the nearest one above
 * it), so imports resolve as in the author's editor and nothing else of that
 * file (unstable features, lock files) changes what is bundled.
 *
 * @module
 */
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BuildError } from "../errors.ts";
import { SERVICE_API_SPECIFIER } from "../isolate/mod.ts";
import { readAuthorConfig } from "./config.ts";
import { nodeBuiltinUses, type NpmPackage, npmVersionProblem, withoutCachePaths } from "./_npm.ts";
import { type Polyfill, polyfillPrelude, polyfillsUsed } from "./polyfill/polyfills.ts";
import type { SourceMap } from "./source_map.ts";

/** Options for {@linkcode buildPackage}. */
export interface BuildOptions {
  /** The `deno` executable that bundles; defaults to the running one. */
  deno?: string;
  /**
   * Called with the source map of each file written, its `sources` relative
   * to the package folder, so a place in the built module can be shown at
   * the author's line. The map is not written into the package.
   */
  onSourceMap?: (output: string, map: SourceMap) => void;
}

/** One file a build wrote. Paths are relative to the package folder. */
export interface BuildOutput {
  /** The source it was built from, such as `src/service.ts`. */
  source: string;
  /** The file written, such as `service/index.js`. */
  output: string;
  /** Its size in bytes. */
  bytes: number;
}

/** What a build wrote: nothing when the package has no `src/` sources. */
export interface BuildResult {
  /** Each file written, in the order built: the service module, then the screen. */
  outputs: BuildOutput[];
}

/** The sources a build looks for, and the manifest field naming where each goes. */
const ENTRIES = [
  { source: "src/service.ts", field: "service", example: "service/index.js" },
  { source: "src/index.tsx", field: "ui", example: "ui/index.js" },
] as const;

/**
 * Builds a package folder: each source under `src/` that exists is bundled
 * into the file its manifest field names. A package with no `src/` has
 * nothing to build, which is not an error.
 *
 * Only files inside the package folder go into a build: before bundling, the
 * module graph is listed (`deno info`) and a module outside the folder, a
 * remote or `jsr:` module, an `npm:` package without an exact version, a Node
 * built-in, or the typed API module imported by its path is refused; so is an
 * npm package whose bundled code imports a Node built-in. The author's `deno.json` is honoured for its imports and
 * compiler options only.
 *
 * @param dir The package folder (holding `manifest.json`).
 * @param options The `deno` that bundles, and who is handed each file's source map.
 * @returns What was written, with sizes, paths relative to `dir`.
 * @throws {BuildError} when the folder or its manifest cannot be read, the
 *   manifest names no output for a source that exists, a source imports what
 *   a build may not bundle, or the bundler refuses a source; `file`, `line`
 *   and `column` say where (relative to `dir`).
 * @example
 * ```ts
 * const { outputs } = await buildPackage("extensions/issues");
 * // [{ source: "src/service.ts", output: "service/index.js", bytes: 2113 }]
 * ```
 */
export async function buildPackage(dir: string, options: BuildOptions = {}): Promise<BuildResult> {
  const root = resolve(dir);
  let info: Deno.FileInfo | undefined;
  try {
    info = await Deno.stat(root);
  } catch { /* reported below */ }
  if (!info?.isDirectory) {
    throw new BuildError(
      `Cannot build ${root}: ${info ? "it is a file, not a folder" : "no such folder"}; ` +
        `name a package folder (one holding manifest.json)`,
      { file: "." },
    );
  }
  const manifest = await readRawManifest(root);
  const present = [];
  for (const entry of ENTRIES) {
    if (await isFile(join(root, entry.source))) present.push(entry);
  }
  if (present.length === 0) return { outputs: [] };

  const outputs: BuildOutput[] = [];
  const scratch = await Deno.makeTempDir({ prefix: "sync-build-" });
  try {
    const config = join(scratch, "deno.json");
    const author = await readAuthorConfig(root);
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        imports: {
          ...author.imports,
          [SERVICE_API_SPECIFIER]: API_MODULE,
          [SCREEN_API_SPECIFIER]: SCREEN_API_MODULE,
        },
        compilerOptions: author.compilerOptions,
      }),
    );
    const run = { root, config, deno: options.deno ?? Deno.execPath(), scratch };
    for (const entry of present) {
      const target = manifest[entry.field];
      if (typeof target !== "string" || !isInside(target)) {
        throw new BuildError(
          `Cannot build ${entry.source}: manifest.json names no ${entry.field} file to build ` +
            `it into` +
            (typeof target === "string"
              ? ` (${JSON.stringify(target)} is not a path inside the package)`
              : "") +
            `; add "${entry.field}": "${entry.example}"`,
          { file: "manifest.json" },
        );
      }
      const packages = await assertBundlesOnlyPackageFiles(run, entry.source);
      const { code, map } = await bundle(run, entry.source, {
        packages,
        service: entry.field === "service",
      });
      if (map) options.onSourceMap?.(target, map);
      const output = join(root, target);
      await Deno.mkdir(dirname(output), { recursive: true });
      await Deno.writeTextFile(output, code);
      outputs.push({
        source: entry.source,
        output: target,
        bytes: new TextEncoder().encode(code).byteLength,
      });
    }
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
  return { outputs };
}

/** One build's setting: the package, the generated configuration, the bundler. */
interface BuildRun {
  root: string;
  config: string;
  deno: string;
  scratch: string;
}

/** The typed API module; a build leaves its import to the isolate's loader. */
const API_MODULE = new URL("../extension_api/service.ts", import.meta.url).href;

/** The specifier a screen imports its types from. */
export const SCREEN_API_SPECIFIER = "@sync/extension-api/ui";

/** The screen's typed API module, imported with `import type` only and erased by the build. */
const SCREEN_API_MODULE = new URL("../extension_api/ui.ts", import.meta.url).href;

const API_HINT = `import it as "${SERVICE_API_SPECIFIER}": the build leaves that import to ` +
  `the isolate's loader, which serves the real module (the file in the Sync checkout only ` +
  `declares it, and every call of it fails)`;

/** One module of `deno info --json`, as far as a build reads it. */
interface GraphModule {
  specifier: string;
  error?: string;
  dependencies?: {
    specifier: string;
    code?: { specifier?: string; error?: string; span?: GraphSpan };
  }[];
}

/** One npm package of `deno info --json`. */
interface GraphNpmPackage {
  name?: string;
  version?: string;
  localPath?: string;
}

interface GraphSpan {
  start: { line: number; character: number };
}

/**
 * Lists the module graph of `source` and refuses what a build may not put
 * into a package: a file outside the package folder (a secret the author can
 * read is not the package's), a remote or `jsr:` module (the build cannot show
 * what such a module itself reads, and a package should be reproducible from
 * its own folder), an `npm:` package without an exact version (for the same
 * reason), a Node built-in, and the typed API module by its path. The bundler
 * reports modules that do not resolve.
 *
 * @returns The npm packages of the graph, which the bundle is then held to.
 */
async function assertBundlesOnlyPackageFiles(
  run: BuildRun,
  source: string,
): Promise<NpmPackage[]> {
  const result = await runDeno(run, source, [
    "info",
    "--json",
    "--no-lock",
    "--config",
    run.config,
    source,
  ]);
  if (!result.success) return []; // The bundler says what is wrong, at its place.
  let graph: { modules?: GraphModule[]; npmPackages?: Record<string, GraphNpmPackage> };
  try {
    graph = JSON.parse(new TextDecoder().decode(result.stdout));
  } catch {
    throw new BuildError(`Cannot build ${source}: deno info wrote no module graph`, {
      file: source,
    });
  }
  const root = await Deno.realPath(run.root);
  const apiFile = await Deno.realPath(fileURLToPath(API_MODULE)).catch(() => undefined);
  for (const module of graph.modules ?? []) {
    if (!module.specifier.startsWith("file:")) continue;
    for (const dependency of module.dependencies ?? []) {
      if (dependency.specifier === SERVICE_API_SPECIFIER) continue;
      const resolved = dependency.code?.specifier;
      if (!resolved) continue;
      const from = relativeTo(root, fileURLToPath(module.specifier));
      const span = dependency.code?.span;
      const place = {
        file: from,
        ...(span ? { line: span.start.line + 1, column: span.start.character + 1 } : {}),
      };
      if (dependency.specifier === SCREEN_API_SPECIFIER) {
        // `import { type X }` and a value such as API_VERSION both leave an import in the
        // module; only `import type` is erased.
        throw new BuildError(
          `Cannot build ${source}: ${from} imports "${SCREEN_API_SPECIFIER}" without ` +
            `import type; a screen imports it for its types only, since its frame is served no ` +
            `module of that name and the build bundles none of it. Write import type ` +
            `{ ScreenContext } from "${SCREEN_API_SPECIFIER}", and read the one value it ` +
            `exports, API_VERSION, as ctx.apiVersion`,
          place,
        );
      }
      const what = `Cannot build ${source}: ${from} imports ${
        JSON.stringify(dependency.specifier)
      }`;
      if (resolved.startsWith("node:")) {
        throw new BuildError(`${what}, ${cannotUse(source)}`, place);
      }
      if (resolved.startsWith("npm:")) {
        const problem = npmVersionProblem(resolved);
        if (problem === undefined) continue;
        throw new BuildError(`${what}: ${problem}`, place);
      }
      if (!resolved.startsWith("file:")) {
        throw new BuildError(
          `${what}, which is not a file in the package folder; a build bundles only the ` +
            `package's own files and npm packages, so import the library as ` +
            `"npm:name@1.2.3" or copy the code it needs into the package (src/)`,
          place,
        );
      }
      const path = fileURLToPath(resolved);
      let real: string;
      try {
        real = await Deno.realPath(path);
      } catch {
        continue; // Does not exist: the bundler says so, at its place.
      }
      if (real === apiFile) {
        throw new BuildError(`${what}, the typed API module by its path; ${API_HINT}`, place);
      }
      if (!isWithin(root, real)) {
        throw new BuildError(
          `${what}, which is outside the package folder (${real}); a build bundles only ` +
            `files inside the package, so move what it needs into the package folder`,
          place,
        );
      }
    }
  }
  const packages: NpmPackage[] = [];
  for (const p of Object.values(graph.npmPackages ?? {})) {
    if (p.name && p.version && p.localPath) {
      packages.push({ name: p.name, version: p.version, localPath: p.localPath });
    }
  }
  return packages;
}

/** Why a source may not use a Node built-in such as `node:fs`. */
function cannotUse(source: string): string {
  return source === ENTRIES[1].source
    ? `which a screen cannot use: it runs in a browser frame, not in Node; reach the host ` +
      `through ctx`
    : `which a handler cannot use: the isolate is not Node and has no filesystem, network or ` +
      `processes; choose a library that runs in a browser, or reach the world through the ` +
      `extension API`;
}

/**
 * Runs `deno bundle` on one source and answers the module's text. It writes to
 * a file rather than to stdout: writing to stdout, the bundler reports a
 * failure as success with no output. A bundled npm package that imports a
 * Node built-in is refused, naming both; a service module gets the built-ins
 * a build provides that it uses.
 */
async function bundle(
  run: BuildRun,
  source: string,
  { packages, service }: { packages: NpmPackage[]; service: boolean },
): Promise<{ code: string; map: SourceMap | undefined }> {
  const built = await bundleFile(run, source, "bundle.js");
  const uses = nodeBuiltinUses(built.code, run.root, packages);
  if (uses.length > 0) {
    const { from, builtin } = uses[0];
    throw new BuildError(
      `Cannot build ${source}: ${from ?? "an npm package it imports"} imports ${builtin}, ` +
        cannotUse(source),
      { file: source },
    );
  }
  let code = withoutCachePaths(built.code, run.root, packages);
  let map = built.map;
  const polyfills = service ? polyfillsUsed(code) : [];
  if (polyfills.length > 0) {
    const prelude = await preludeFor(run, source, polyfills);
    code = prelude + code;
    const lines = prelude.split("\n").length - 1;
    if (map) map = { ...map, mappings: ";".repeat(lines) + map.mappings };
  }
  return { code, map };
}

/** The provided built-ins' modules, each bundled alone and made a module-level binding. */
async function preludeFor(run: BuildRun, source: string, polyfills: Polyfill[]): Promise<string> {
  const bundled: string[] = [];
  for (const polyfill of polyfills) {
    const entry = join(run.scratch, `polyfill_${polyfill.name}.ts`);
    await Deno.writeTextFile(
      entry,
      `export { ${polyfill.exported} } from ${JSON.stringify(polyfill.module)};\n`,
    );
    bundled.push((await bundleFile(run, entry, `polyfill_${polyfill.name}.js`, source)).code);
  }
  return polyfillPrelude(polyfills, bundled);
}

/** `deno bundle` of one entry into the scratch folder: its text and source map. */
async function bundleFile(
  run: BuildRun,
  entry: string,
  name: string,
  source = entry,
): Promise<{ code: string; map: SourceMap | undefined }> {
  const out = join(run.scratch, name);
  await Deno.remove(out).catch(() => {});
  await Deno.remove(`${out}.map`).catch(() => {});
  const result = await runDeno(run, source, [
    "bundle",
    "--no-lock",
    "--config",
    run.config,
    "--format",
    "esm",
    "--platform",
    "browser",
    "--external",
    SERVICE_API_SPECIFIER,
    "--sourcemap",
    "external",
    "--output",
    out,
    entry,
  ]);
  const stderr = new TextDecoder().decode(result.stderr);
  if (!result.success) throw bundlerError(run.root, source, stderr);
  let code = "";
  try {
    code = await Deno.readTextFile(out);
  } catch { /* reported below */ }
  if (code.trim() === "") {
    throw new BuildError(
      `Cannot build ${source}: the bundler wrote nothing${stderr ? `: ${firstLines(stderr)}` : ""}`,
      { file: source },
    );
  }
  if (code.includes(API_STUB_MARK)) {
    throw new BuildError(
      `Cannot build ${source}: the bundle holds a copy of the typed API module, whose ` +
        `functions only declare the API; ${API_HINT}`,
      { file: source },
    );
  }
  return {
    code: code.endsWith("\n") ? code : `${code}\n`,
    map: await readSourceMap(`${out}.map`, run.root),
  };
}

/** The bundler's map beside `out`, its sources made relative to the package folder. */
async function readSourceMap(file: string, root: string): Promise<SourceMap | undefined> {
  let raw: { sources?: unknown; mappings?: unknown };
  try {
    raw = JSON.parse(await Deno.readTextFile(file));
  } catch {
    return undefined; // Without a map, problems stay at their place in the built module.
  }
  if (!Array.isArray(raw.sources) || typeof raw.mappings !== "string") return undefined;
  const realRoot = await Deno.realPath(root).catch(() => root);
  const sources = raw.sources.map((source) => {
    const path = resolve(dirname(file), String(source));
    const inside = relativeTo(root, path);
    return isAbsolute(inside) ? relativeTo(realRoot, path) : inside;
  });
  return { sources, mappings: raw.mappings };
}

/** Words only the typed API module's stand-in functions say. */
const API_STUB_MARK = "runs only inside Sync's isolate, where the host serves";

async function runDeno(run: BuildRun, source: string, args: string[]): Promise<Deno.CommandOutput> {
  try {
    return await new Deno.Command(run.deno, {
      args,
      cwd: run.root,
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    throw new BuildError(
      `Cannot build ${source}: ${run.deno} could not be started (${(error as Error).message})`,
      { file: source },
    );
  }
}

/**
 * The bundler's complaint as a `BuildError` at the place it names
 * (`at file:///…/src/service.ts:3:39`), the path made relative to the package.
 */
function bundlerError(root: string, source: string, stderr: string): BuildError {
  const lines = stderr.split("\n").filter((line) => !/deno bundle.* is experimental/.test(line));
  const message = lines.find((line) => line.startsWith("error: "))?.slice("error: ".length) ??
    "the bundler failed";
  const at = /at (file:\/\/\S+?):(\d+):(\d+)\s*$/m.exec(lines.join("\n"));
  if (!at) {
    return new BuildError(`Cannot build ${source}: ${message}`, { file: source });
  }
  let file = source;
  try {
    file = relativeTo(root, fileURLToPath(at[1]));
  } catch { /* keep the source's name */ }
  return new BuildError(`Cannot build ${source}: ${message}`, {
    file,
    line: Number(at[2]),
    column: Number(at[3]),
  });
}

/** `path` relative to `root` with forward slashes, or absolute when it is outside. */
function relativeTo(root: string, path: string): string {
  const inside = relative(root, path).replaceAll("\\", "/");
  return inside.startsWith("../") || isAbsolute(inside) ? path : inside;
}

function isWithin(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside);
}

async function readRawManifest(root: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(root, "manifest.json"));
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound ? "it is missing" : (error as Error).message;
    throw new BuildError(
      `Cannot build ${root}: manifest.json cannot be read (${why}); a package folder holds its manifest.json`,
      { file: "manifest.json" },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text);
  } catch (error) {
    throw new BuildError(
      `Cannot build ${root}: manifest.json is not JSON (${
        (error as Error).message
      }); run deno task check for where`,
      { file: "manifest.json" },
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BuildError(`Cannot build ${root}: manifest.json is not a JSON object`, {
      file: "manifest.json",
    });
  }
  return value as Record<string, unknown>;
}

/** A relative path that stays inside the package (the manifest's own rule, checked again here). */
function isInside(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\") || /^[a-zA-Z]:/.test(path)) {
    return false;
  }
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function firstLines(text: string): string {
  return text.trim().split("\n").slice(0, 3).join(" ");
}
