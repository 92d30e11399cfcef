/**
 * Building a package: `src/service.ts` becomes the file the manifest's
 * `service` names and `src/index.tsx` the file `ui` names, each one ES module
 * with everything bundled in except `@sync/extension-api/service`, which the
 * isolate's loader serves.
 *
 * The bundler is Deno's own (`deno bundle`), run as a subprocess in the
 * package folder, so the package's `deno.json` (or the nearest one above it)
 * resolves its imports exactly as the author's editor does.
 *
 * @module
 */
import { dirname, join, relative, resolve } from "node:path";
import { BuildError } from "./errors.ts";
import { SERVICE_API_SPECIFIER } from "../workers/_protocol.ts";

/** Options for {@linkcode buildPackage}. */
export interface BuildOptions {
  /** The `deno` executable that bundles; defaults to the running one. */
  deno?: string;
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
 * @param dir The package folder (holding `manifest.json`).
 * @returns What was written, with sizes, paths relative to `dir`.
 * @throws {BuildError} when the manifest cannot be read or names no output
 *   for a source that exists, or the bundler refuses a source; `file`,
 *   `line` and `column` say where (relative to `dir`).
 * @example
 * ```ts
 * const { outputs } = await buildPackage("extensions/issues");
 * // [{ source: "src/service.ts", output: "service/index.js", bytes: 2113 }]
 * ```
 */
export async function buildPackage(dir: string, options: BuildOptions = {}): Promise<BuildResult> {
  const root = resolve(dir);
  const present = [];
  for (const entry of ENTRIES) {
    if (await isFile(join(root, entry.source))) present.push(entry);
  }
  if (present.length === 0) return { outputs: [] };

  const manifest = await readRawManifest(root);
  const outputs: BuildOutput[] = [];
  for (const entry of present) {
    const target = manifest[entry.field];
    if (typeof target !== "string" || !isInside(target)) {
      throw new BuildError(
        `Cannot build ${entry.source}: manifest.json names no ${entry.field} file to build it into` +
          (typeof target === "string"
            ? ` (${JSON.stringify(target)} is not a path inside the package)`
            : "") +
          `; add "${entry.field}": "${entry.example}"`,
        { file: "manifest.json" },
      );
    }
    const code = await bundle(root, entry.source, options.deno ?? Deno.execPath());
    const output = join(root, target);
    await Deno.mkdir(dirname(output), { recursive: true });
    await Deno.writeTextFile(output, code);
    outputs.push({
      source: entry.source,
      output: target,
      bytes: new TextEncoder().encode(code).byteLength,
    });
  }
  return { outputs };
}

/**
 * Runs `deno bundle` on one source and answers the module's text. It writes to
 * a file rather than to stdout: writing to stdout, the bundler reports a
 * failure as success with no output.
 */
async function bundle(root: string, source: string, deno: string): Promise<string> {
  const scratch = await Deno.makeTempDir({ prefix: "sync-build-" });
  try {
    const out = join(scratch, "bundle.js");
    let result: Deno.CommandOutput;
    try {
      result = await new Deno.Command(deno, {
        args: [
          "bundle",
          "--format",
          "esm",
          "--platform",
          "browser",
          "--external",
          SERVICE_API_SPECIFIER,
          "--output",
          out,
          source,
        ],
        cwd: root,
        env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (error) {
      throw new BuildError(
        `Cannot build ${source}: the bundler ${deno} could not be started (${
          (error as Error).message
        })`,
        { file: source },
      );
    }
    const stderr = new TextDecoder().decode(result.stderr);
    if (!result.success) throw bundlerError(root, source, stderr);
    let code = "";
    try {
      code = await Deno.readTextFile(out);
    } catch { /* reported below */ }
    if (code.trim() === "") {
      throw new BuildError(
        `Cannot build ${source}: the bundler wrote nothing${
          stderr ? `: ${firstLines(stderr)}` : ""
        }`,
        { file: source },
      );
    }
    return code.endsWith("\n") ? code : `${code}\n`;
  } finally {
    await Deno.remove(scratch, { recursive: true });
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
    file = relative(root, decodeURIComponent(new URL(at[1]).pathname)).replaceAll("\\", "/");
  } catch { /* keep the source's name */ }
  const line = Number(at[2]);
  const column = Number(at[3]);
  return new BuildError(`Cannot build ${source}: ${file}:${line}:${column}: ${message}`, {
    file,
    line,
    column,
  });
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
