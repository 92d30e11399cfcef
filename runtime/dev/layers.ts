/**
 * The layer check: reads the repository's module graph with `deno info --json`
 * and reports every import that breaks the way the layers point.
 *
 * - No import cycles, anywhere (an `import type` counts: the two files still
 *   cannot be understood, or moved, one without the other).
 * - A module of `runtime/` imports its own domain or a domain of a lower rank
 *   ({@linkcode DOMAIN_RANKS}); never a sibling domain of the same rank, never
 *   up, never anything outside `runtime/`.
 * - A file named `_x.ts` is private to its folder; the tests in the mirrored
 *   folder of `tests/` (`tests/author/check/` for `runtime/author/check/`) may
 *   import it too.
 * - `workers/` imports only `runtime/isolate/protocol.ts` and
 *   `runtime/parsers/protocol.ts` (and its own files);
 *   `main.ts` imports only `runtime/cli/`.
 * - `ui/`, the browser app, imports only its own files, the npm packages
 *   {@linkcode UI_PACKAGES}, and, as `import type` only, the API's shapes
 *   ({@linkcode UI_TYPE_SOURCES}): the bundle carries nothing of the
 *   runtime. Nothing in `runtime/` or `workers/` imports `ui/`.
 * - Tests are held to the cycle and privacy rules only.
 *
 * This folder, `runtime/dev/`, holds build-time tools: it is outside the ranks
 * and nothing in the runtime may import it.
 *
 * Run as `deno task layers`: exits 1 listing the findings, or 0 with a
 * one-line summary.
 *
 * @module
 */
import { basename, isAbsolute, join, posix } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * The rank of each domain of `runtime/`, by folder; `base` stands for the
 * files directly in `runtime/` (errors, limits, types, error status). This is
 * the one place the ranks are written down: a new folder under `runtime/` gets
 * a line here, or every module in it is reported.
 */
export const DOMAIN_RANKS: Readonly<Record<string, number>> = {
  // Lowest: the API owns what a handler sees, and the host's own shapes are written in its terms.
  extension_api: 0,
  base: 1,
  internal: 1,
  packages: 2,
  projects: 2,
  memory: 2,
  isolate: 2,
  work: 2,
  // The processes Sync starts: it knows nothing of what they are for.
  supervisor: 2,
  // Standard formats (MIME, iCalendar) parsed in permissionless Workers; knows nothing of who asks.
  parsers: 2,
  // OpenAI-compatible chat-completions endpoints, and one JSON completion from them.
  models: 2,
  host: 3,
  clock: 4,
  // sync-mcp: what agents reach of a project (memory, work, handlers as tools); calls through the host.
  mcp: 4,
  // `sync mcp`: stdio carried to the serve's `/mcp`; it loads nothing of mcp/ or the host.
  mcp_bridge: 4,
  author: 4,
  // Agent sessions over ACP; they will sit on host, work, projects and the process supervisor.
  agents: 4,
  // Devices, their accounts and tasks: the task runner calls through the host, beside the clock.
  applets: 4,
  // The attention pipeline: evidence, extraction and the Attention Center, over applets' records.
  attention: 4,
  lifecycle: 5,
  // What a person sees of the installed packages (lamps, pages): reads the clock, host and packages.
  extensions: 5,
  web: 6,
  cli: 7,
};

/** Domains whose files other domains import directly, having no public entry of their own. */
const OPEN_DOMAINS: readonly string[] = ["base", "internal", "extension_api"];
/** The folder of build-time tools, outside the ranks. */
const DEV_FOLDER = "runtime/dev/";
/** The runtime modules `workers/` may import: each pool's protocol with its workers. */
const WORKER_PROTOCOLS: readonly string[] = [
  "runtime/isolate/protocol.ts",
  "runtime/parsers/protocol.ts",
];
/** Source files the graph is started from; others are reached through imports. */
const SOURCE_EXTENSIONS = [".ts", ".tsx", ".mts", ".js", ".mjs"];
/**
 * Folders that hold no modules of the repository: package sources for the
 * tests, and the browser app's bundle (built from `ui/`, checked there).
 */
const NOT_ENTRIES = ["tests/fixtures", "ui/dist"];
/** The browser app's folder. */
const UI_FOLDER = "ui/";
/** The npm packages the browser app may import (and their subpaths, such as `preact/hooks`). */
export const UI_PACKAGES: readonly string[] = ["preact", "@preact/signals"];
/** The runtime files the browser app may import, with `import type` only: the API's shapes. */
export const UI_TYPE_SOURCES: readonly string[] = [
  "runtime/web/api/types.ts",
  "runtime/web/api/events_types.ts",
  "runtime/web/api/chat_types.ts",
  "runtime/web/api/process_types.ts",
  "runtime/web/api/records_types.ts",
  "runtime/web/api/devices_types.ts",
  "runtime/extension_api/ui.ts",
];
/**
 * Source text of one `data:` root module, at most: the URL is one argument of
 * the `deno info` command, and Linux caps a single argument at 128 KiB.
 */
const MAX_ROOT_SOURCE = 48 * 1024;

/** One import from a repository file to another. */
export interface ModuleImport {
  /** The imported file, relative to the repository, with `/` separators. */
  target: string;
  /** Line of the import's specifier, from 1. */
  line: number;
  /** True for `import type` and other imports that leave nothing at run time. */
  typeOnly: boolean;
}

/** An import of something outside the repository: an npm package, a `node:` module, a URL. */
export interface ExternalImport {
  /** What it resolved to, such as `npm:/preact@10.29.8/hooks` or `node:path`. */
  specifier: string;
  /** Line of the import's specifier, from 1. */
  line: number;
}

/** The repository files reached from the entries, and the imports between them. */
export interface ModuleGraph {
  /** Each file (relative, `/` separators) with its imports of other repository files. */
  modules: Map<string, ModuleImport[]>;
  /** Each file's imports of what is outside the repository; absent, none are known. */
  external?: Map<string, ExternalImport[]>;
  /** What `deno info` could not read or resolve, in its words. */
  errors: ModuleError[];
}

/** A file `deno info` could not read, or an import it could not resolve. */
export interface ModuleError {
  /** The file, relative to the repository. */
  file: string;
  /** Line of the import that could not be resolved, from 1; absent when the file itself is unreadable. */
  line?: number;
  /** What `deno info` said, on one line. */
  error: string;
}

/** One broken rule. */
export interface LayerFinding {
  /** Which rule: an import cycle, a rank, a private file, what an entry point may import, or an unreadable file. */
  rule: "cycle" | "rank" | "private" | "entry" | "unreadable";
  /** The importing file, relative to the repository. */
  file: string;
  /** Line of the import, from 1, when the finding is about one import. */
  line?: number;
  /** The whole finding as one line, naming file, line, import and rule. */
  message: string;
}

/** What {@linkcode checkLayers} found. */
export interface LayersReport {
  /** Every broken rule, cycles first, then by file and line; empty when all is well. */
  findings: LayerFinding[];
  /** Repository files in the graph. */
  modules: number;
  /** Imports between repository files that were checked. */
  imports: number;
}

/** Options for {@linkcode readModuleGraph} and {@linkcode checkLayers}. */
export interface LayersOptions {
  /** The repository folder; paths in findings are relative to it. */
  root: string;
  /** The `deno` executable; `deno` on the PATH by default. */
  deno?: string;
}

/**
 * Lists the files the check starts from: every source file in `runtime/`,
 * `workers/`, `ui/` and `tests/` (but not the package sources in
 * `tests/fixtures/`, nor the bundle in `ui/dist/`), and `main.ts`.
 *
 * @param root The repository folder.
 * @returns Absolute paths, sorted.
 * @throws Deno's file system errors other than a missing folder.
 */
export async function repositoryEntries(root: string): Promise<string[]> {
  const entries: string[] = [];
  for (const folder of ["runtime", "workers", "ui", "tests"]) {
    await collectSources(root, folder, entries);
  }
  try {
    if ((await Deno.stat(join(root, "main.ts"))).isFile) entries.push(join(root, "main.ts"));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return entries.sort();
}

async function collectSources(root: string, folder: string, into: string[]): Promise<void> {
  if (NOT_ENTRIES.includes(folder)) return;
  let items: Deno.DirEntry[];
  try {
    items = await Array.fromAsync(Deno.readDir(join(root, folder)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const item of items) {
    const path = `${folder}/${item.name}`;
    if (item.isDirectory) await collectSources(root, path, into);
    else if (item.isFile && SOURCE_EXTENSIONS.some((ext) => item.name.endsWith(ext))) {
      into.push(join(root, path));
    }
  }
}

/**
 * Reads the module graph reached from `entries` with `deno info --json`, run
 * on a `data:` module that imports them all: over this repository's ~90
 * entries one run takes some 40 ms, one run per entry over half a second.
 * npm and remote modules are not fetched: only imports between repository
 * files matter here. Dynamic imports count like static ones.
 *
 * @param entries Files to start from, absolute or relative to `options.root`.
 * @param options The repository folder and the `deno` to run.
 * @returns The repository files reached and their imports of each other.
 * @throws {Error} when `deno info` fails as a whole (its stderr is in the message).
 */
export async function readModuleGraph(
  entries: string[],
  options: LayersOptions,
): Promise<ModuleGraph> {
  const rootUrl = pathToFileURL(join(options.root, "/")).href;
  const graph: ModuleGraph = { modules: new Map(), external: new Map(), errors: [] };
  const config = await configArgs(options.root);
  for (const source of rootSources(entries, options.root)) {
    const url = `data:application/typescript;base64,${btoa(source)}`;
    const output = await new Deno.Command(options.deno ?? "deno", {
      args: ["info", "--json", "--no-npm", "--no-remote", "--no-lock", ...config, url],
      cwd: options.root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      throw new Error(
        `deno info failed (exit ${output.code}): ${new TextDecoder().decode(output.stderr).trim()}`,
      );
    }
    addInfo(graph, JSON.parse(new TextDecoder().decode(output.stdout)), rootUrl);
  }
  return graph;
}

/** The repository's own config (its import map), or none, so no folder above is picked up. */
async function configArgs(root: string): Promise<string[]> {
  for (const name of ["deno.json", "deno.jsonc"]) {
    try {
      await Deno.stat(join(root, name));
      return ["--config", join(root, name)];
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return ["--no-config"];
}

/** Sources of root modules importing every entry, split so no URL outgrows one argument. */
function rootSources(entries: string[], root: string): string[] {
  const sources: string[] = [];
  let source = "";
  for (const entry of entries) {
    const url = pathToFileURL(isAbsolute(entry) ? entry : join(root, entry)).href;
    const line = `import ${JSON.stringify(url)};\n`;
    if (source && source.length + line.length > MAX_ROOT_SOURCE) {
      sources.push(source);
      source = "";
    }
    source += line;
  }
  if (source) sources.push(source);
  return sources;
}

/** The parts of `deno info --json` output read here. */
interface DenoInfo {
  modules: {
    specifier: string;
    error?: string;
    dependencies?: {
      specifier: string;
      code?: DenoInfoResolution;
      type?: DenoInfoResolution;
    }[];
  }[];
}

interface DenoInfoResolution {
  specifier?: string;
  error?: string;
  span?: { start: { line: number } };
}

function addInfo(graph: ModuleGraph, info: DenoInfo, rootUrl: string): void {
  for (const module of info.modules) {
    const file = repositoryPath(module.specifier, rootUrl);
    if (file === null || graph.modules.has(file)) continue;
    if (module.error) graph.errors.push({ file, error: oneLine(module.error) });
    const imports: ModuleImport[] = [];
    const external: ExternalImport[] = [];
    for (const dependency of module.dependencies ?? []) {
      const resolution = dependency.code ?? dependency.type;
      if (resolution?.error) {
        graph.errors.push({
          file,
          line: (resolution.span?.start.line ?? 0) + 1,
          error: oneLine(resolution.error),
        });
        continue;
      }
      if (!resolution?.specifier) continue;
      const target = repositoryPath(resolution.specifier, rootUrl);
      if (target === null) {
        if (!resolution.specifier.startsWith("file:")) {
          external.push({
            specifier: resolution.specifier,
            line: (resolution.span?.start.line ?? 0) + 1,
          });
        }
        continue;
      }
      imports.push({
        target,
        line: (resolution?.span?.start.line ?? 0) + 1,
        typeOnly: dependency.code === undefined,
      });
    }
    graph.modules.set(file, imports);
    graph.external?.set(file, external);
  }
}

/** The first line of a message from deno, and its `at file:line:column` when it has one. */
function oneLine(message: string): string {
  const lines = message.trim().split("\n");
  const at = lines.at(-1)!.trim();
  return lines.length > 1 && at.startsWith("at ") ? `${lines[0]} (${at})` : lines[0];
}

/** A file URL inside the repository as a relative path, else null. */
function repositoryPath(specifier: string, rootUrl: string): string | null {
  if (!specifier.startsWith(rootUrl)) return null;
  return decodeURIComponent(specifier.slice(rootUrl.length));
}

/**
 * Reads the module graph reached from `entries` and checks it: import cycles,
 * imports up the ranks or sideways, private files imported from elsewhere, and
 * what `workers/` and `main.ts` import.
 *
 * @param entries Files to start from, absolute or relative to `options.root`
 *   (see {@linkcode repositoryEntries}).
 * @param options The repository folder and the `deno` to run.
 * @returns The findings, and how many modules and imports were looked at.
 * @throws {Error} when `deno info` fails as a whole.
 */
export async function checkLayers(
  entries: string[],
  options: LayersOptions,
): Promise<LayersReport> {
  const graph = await readModuleGraph(entries, options);
  let imports = 0;
  for (const list of graph.modules.values()) imports += list.length;
  return { findings: layerFindings(graph), modules: graph.modules.size, imports };
}

/**
 * Checks a module graph against the layer rules (see the module's
 * documentation).
 *
 * @param graph Repository files and their imports, as {@linkcode readModuleGraph} reads them.
 * @returns Every finding: cycles first, then the rest by file and line.
 */
export function layerFindings(graph: ModuleGraph): LayerFinding[] {
  const findings: LayerFinding[] = [];
  for (const { file, line, error } of graph.errors) {
    if (line !== undefined) {
      findings.push({ rule: "unreadable", file, line, message: `${file}:${line}: ${error}` });
      continue;
    }
    // A file that cannot be read is named where it is imported, when it is.
    const importers = [...graph.modules].flatMap(([from, imports]) =>
      imports.filter((entry) => entry.target === file).map((entry) => ({ from, entry }))
    );
    if (importers.length === 0) {
      findings.push({ rule: "unreadable", file, message: `${file}: ${error}` });
    }
    for (const { from, entry } of importers) {
      findings.push({
        rule: "unreadable",
        file: from,
        line: entry.line,
        message: `${from}:${entry.line} imports ${file}: ${error}`,
      });
    }
  }
  const unranked = new Set<string>();
  for (const [file, imports] of graph.modules) {
    const domain = runtimeDomain(file);
    if (
      domain !== null && domain !== "dev" && rankOf(domain) === undefined && !unranked.has(domain)
    ) {
      unranked.add(domain);
      findings.push({
        rule: "rank",
        file,
        message: `${file}: runtime/${domain}/ has no rank; give it one in DOMAIN_RANKS ` +
          `(runtime/dev/layers.ts)`,
      });
    }
    for (const { specifier, line } of graph.external?.get(file) ?? []) {
      const broken = externalRule(file, specifier);
      if (broken) {
        findings.push({
          rule: "entry",
          file,
          line,
          message: `${file}:${line} imports ${specifier}: ${broken}`,
        });
      }
    }
    for (const { target, line, typeOnly } of imports) {
      const broken = privateRule(file, target) ?? importRule(file, target, typeOnly);
      if (broken) {
        findings.push({
          rule: broken.rule,
          file,
          line,
          message: `${file}:${line} imports ${target}: ${broken.why}`,
        });
      }
    }
  }
  // Code unit order, not the locale's: the same list on every machine.
  findings.sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)
  );
  return [...cycleFindings(graph), ...findings];
}

/** A `_x.ts` imported from outside its folder and its mirror under `tests/`. */
function privateRule(file: string, target: string): { rule: "private"; why: string } | null {
  const name = basename(target);
  if (!name.startsWith("_")) return null;
  const folder = posix.dirname(target);
  const mirror = mirrorFolder(folder);
  const from = posix.dirname(file);
  if (from === folder || from === mirror) return null;
  return {
    rule: "private",
    why: `${name} is private to ${folder}/ (and the tests in ${mirror}/)`,
  };
}

/** The folder of `tests/` whose tests may reach the private files of `folder`. */
function mirrorFolder(folder: string): string {
  if (folder === "runtime") return "tests";
  if (folder.startsWith("runtime/")) return `tests/${folder.slice("runtime/".length)}`;
  if (folder === "tests" || folder.startsWith("tests/")) return folder;
  return `tests/${folder}`;
}

/** What the browser app may import from outside the repository: its npm packages only. */
function externalRule(file: string, specifier: string): string | null {
  if (!file.startsWith(UI_FOLDER)) return null;
  const name = npmPackageName(specifier);
  if (name !== null && UI_PACKAGES.includes(name)) return null;
  return `ui/ may import only its own files and the npm packages ${UI_PACKAGES.join(", ")}`;
}

/** The package an `npm:` specifier names (`npm:/preact@10.29.8/hooks` → `preact`), else null. */
function npmPackageName(specifier: string): string | null {
  if (!specifier.startsWith("npm:")) return null;
  const path = specifier.slice("npm:".length).replace(/^\//, "");
  const match = path.match(/^(@[^/@]+\/[^/@]+|[^/@]+)/);
  return match ? match[1] : null;
}

/** What the importing file's place allows it to import. */
function importRule(
  file: string,
  target: string,
  typeOnly: boolean,
): { rule: "rank" | "entry"; why: string } | null {
  if (file.startsWith(UI_FOLDER)) {
    if (target.startsWith(UI_FOLDER)) return null;
    if (UI_TYPE_SOURCES.includes(target)) {
      return typeOnly ? null : {
        rule: "entry",
        why: "ui/ imports the API's shapes with `import type` only: the bundle carries nothing " +
          "of the runtime",
      };
    }
    return {
      rule: "entry",
      why: `ui/ may import only its own files, and with \`import type\` ${
        UI_TYPE_SOURCES.slice(0, -1).join(", ")
      } and ${UI_TYPE_SOURCES.at(-1)}`,
    };
  }
  if (file === "main.ts") {
    return target === "runtime/cli/mod.ts"
      ? null
      : { rule: "entry", why: "main.ts may import only runtime/cli/mod.ts" };
  }
  if (file.startsWith("workers/")) {
    if (target.startsWith(UI_FOLDER)) {
      return { rule: "entry", why: "nothing in workers/ imports the browser app in ui/" };
    }
    return WORKER_PROTOCOLS.includes(target) || target.startsWith("workers/")
      ? null
      : { rule: "entry", why: `workers/ may import only ${WORKER_PROTOCOLS.join(" and ")}` };
  }
  const from = runtimeDomain(file);
  if (from === null) return null; // tests and other files: cycles and privates only
  const to = runtimeDomain(target);
  if (target.startsWith(UI_FOLDER)) {
    return { rule: "rank", why: "nothing in runtime/ imports the browser app in ui/" };
  }
  if (to === null) return { rule: "rank", why: "runtime/ may import only runtime/ modules" };
  if (from === "dev") return null;
  if (to === "dev") {
    return {
      rule: "rank",
      why:
        `${DEV_FOLDER} holds build-time tools, outside the ranks; nothing in the runtime imports it`,
    };
  }
  if (from === to) return null;
  const fromRank = rankOf(from);
  const toRank = rankOf(to);
  if (fromRank === undefined || toRank === undefined) return null; // reported once per domain
  if (toRank < fromRank) return entryRule(to, target);
  const rule = `${from} (rank ${fromRank}) may not import ${to} (rank ${toRank})`;
  return { rule: "rank", why: toRank === fromRank ? `${rule}, a sibling domain` : rule };
}

/**
 * Another domain is reached through its public entry, `runtime/<domain>/mod.ts`:
 * what it re-exports is the domain's surface, and `deno task doc` holds exactly
 * that to documentation. The base files, `internal/` and the extension API are
 * imported file by file.
 */
function entryRule(to: string, target: string): { rule: "entry"; why: string } | null {
  if (OPEN_DOMAINS.includes(to)) return null;
  const entry = `runtime/${to}/mod.ts`;
  return target === entry ? null : {
    rule: "entry",
    why: `another domain reaches ${to} through its public entry ${entry}; ` +
      `import it from there (add the export to ${entry} if it is missing)`,
  };
}

/** A domain's rank, or undefined when it has none (the table's own keys only). */
function rankOf(domain: string): number | undefined {
  return Object.hasOwn(DOMAIN_RANKS, domain) ? DOMAIN_RANKS[domain] : undefined;
}

/** `base` for files directly in `runtime/`, the folder name below it for the rest; null outside. */
function runtimeDomain(file: string): string | null {
  if (!file.startsWith("runtime/")) return null;
  const parts = file.split("/");
  return parts.length === 2 ? "base" : parts[1];
}

/**
 * Every import cycle, each once: for every import that lies on a cycle, the
 * shortest way back to the importing file. Naming each such import is what
 * it takes to see where a cycle can be cut.
 */
function cycleFindings(graph: ModuleGraph): LayerFinding[] {
  const edges = new Map<string, Map<string, ModuleImport>>();
  for (const [file, imports] of graph.modules) {
    const out = new Map<string, ModuleImport>();
    for (const entry of imports) {
      const prior = out.get(entry.target);
      if (!prior) out.set(entry.target, entry);
      else if (prior.typeOnly && !entry.typeOnly) out.set(entry.target, entry);
    }
    edges.set(file, out);
  }
  const seen = new Set<string>();
  const findings: LayerFinding[] = [];
  for (const component of stronglyConnected(edges)) {
    for (const from of [...component].sort()) {
      for (const to of [...(edges.get(from)?.keys() ?? [])].sort()) {
        if (!component.has(to)) continue;
        const back = shortestPath(edges, to, from, component);
        if (!back) continue;
        const cycle = rotateToSmallest([from, ...back.slice(0, -1)]);
        const key = cycle.join("\n");
        if (seen.has(key)) continue;
        seen.add(key);
        findings.push(formatCycle(cycle, edges));
      }
    }
  }
  return findings;
}

function formatCycle(cycle: string[], edges: Map<string, Map<string, ModuleImport>>): LayerFinding {
  const steps = cycle.map((file, i) => {
    const edge = edges.get(file)!.get(cycle[(i + 1) % cycle.length])!;
    return `${file}:${edge.line}${edge.typeOnly ? " (import type)" : ""}`;
  });
  const first = edges.get(cycle[0])!.get(cycle[1 % cycle.length])!;
  return {
    rule: "cycle",
    file: cycle[0],
    line: first.line,
    message: `import cycle: ${steps.join(" → ")} → ${cycle[0]}`,
  };
}

function rotateToSmallest(cycle: string[]): string[] {
  let at = 0;
  for (let i = 1; i < cycle.length; i++) if (cycle[i] < cycle[at]) at = i;
  return [...cycle.slice(at), ...cycle.slice(0, at)];
}

/** Files from `start` to `goal` (both included) within `within`, fewest imports first. */
function shortestPath(
  edges: Map<string, Map<string, ModuleImport>>,
  start: string,
  goal: string,
  within: Set<string>,
): string[] | null {
  const previous = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i];
    if (file === goal) {
      const path: string[] = [];
      for (let at: string | null = file; at !== null; at = previous.get(at)!) path.unshift(at);
      return path;
    }
    for (const next of [...(edges.get(file)?.keys() ?? [])].sort()) {
      if (!within.has(next) || previous.has(next)) continue;
      previous.set(next, file);
      queue.push(next);
    }
  }
  return null;
}

/** Tarjan's strongly connected components that hold a cycle (two files or more, or a file importing itself). */
function stronglyConnected(edges: Map<string, Map<string, ModuleImport>>): Set<string>[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: Set<string>[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component = new Set<string>();
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.add(member);
    } while (member !== file);
    if (component.size > 1 || edges.get(file)?.has(file)) components.push(component);
  };
  for (const file of [...edges.keys()].sort()) if (!index.has(file)) visit(file);
  return components;
}

if (import.meta.main) {
  const root = Deno.cwd();
  const report = await checkLayers(await repositoryEntries(root), { root });
  if (report.findings.length > 0) {
    for (const finding of report.findings) console.error(finding.message);
    console.error(
      `layers: ${report.findings.length} finding${report.findings.length === 1 ? "" : "s"} ` +
        `in ${report.modules} modules, ${report.imports} imports`,
    );
    Deno.exit(1);
  }
  console.log(`layers: ${report.modules} modules, ${report.imports} imports checked, all in order`);
}
