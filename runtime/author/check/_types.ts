/**
 * Type-checks a package's `src/service.ts` against the globals the isolate
 * really has: the ECMAScript library and `console`, nothing from the DOM or
 * Deno. It runs `deno check` as a subprocess with a generated configuration
 * (ES library only, a small ambient declaration for the isolate's extra
 * globals, the extension API mapped to this checkout's typed module) and turns
 * each diagnostic into a problem at its file and line.
 *
 * @module
 */
import { isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readAuthorConfig } from "../config.ts";
import { isIsolateGlobal, missingGlobalHint, SERVICE_API_SPECIFIER } from "../../isolate/mod.ts";
import type { CheckProblem } from "./problem.ts";

/** The service source a package is built from. */
export const SERVICE_SOURCE = "src/service.ts";

/** The typed API module authors compile against. */
const API_MODULE = new URL("../../extension_api/service.ts", import.meta.url).href;

/** The screen source a package is built from. */
export const SCREEN_SOURCE = "src/index.tsx";

/** The specifier of the screen's typed API. */
const SCREEN_API_SPECIFIER = "@sync/extension-api/ui";

/** The screen's typed API module. */
const SCREEN_API_MODULE = new URL("../../extension_api/ui.ts", import.meta.url).href;

/**
 * Globals the isolate has beyond the ES library, declared for the type-check.
 * `console` is the host's (routed to its log); `InternalError` is QuickJS's;
 * `TextDecoder` and `TextEncoder` are the ones the build provides
 * (`polyfill/polyfills.ts`).
 */
export const ISOLATE_AMBIENT_DECLARATIONS =
  `/** The host's log, prefixed with the package id and rate-limited. */
interface IsolateConsole {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
}
declare var console: IsolateConsole;
/** QuickJS's error for an interrupted or exhausted call. */
declare var InternalError: ErrorConstructor;
/** Put in by the build when used: a pure decoder for UTF-8, windows-1252 and UTF-16LE. */
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}
/** Put in by the build when used: a pure UTF-8 encoder. */
declare class TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
`;

/** Options for {@linkcode typeCheckService}. */
export interface TypeCheckOptions {
  /** The `deno` executable; defaults to the running one. */
  deno?: string;
  /** The source to check, relative to the package; default `src/service.ts`. */
  source?: string;
}

/**
 * Type-checks the package's screen source, `src/index.tsx`, when it has one,
 * against what a screen's frame has: the ECMAScript library and the DOM, and
 * `@sync/extension-api/ui`.
 *
 * @param dir The package folder.
 * @param options The `deno` that type-checks.
 * @returns One problem per diagnostic; empty when it checks or there is no screen source.
 */
export async function typeCheckScreen(
  dir: string,
  options: Omit<TypeCheckOptions, "source"> = {},
): Promise<CheckProblem[]> {
  const root = resolve(dir);
  try {
    await Deno.stat(join(root, SCREEN_SOURCE));
  } catch {
    return [];
  }
  const scratch = await Deno.makeTempDir({ prefix: "sync-check-" });
  try {
    const config = join(scratch, "deno.json");
    const author = await readAuthorConfig(root);
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        compilerOptions: {
          ...author.compilerOptions,
          strict: true,
          lib: ["esnext", "dom", "dom.iterable"],
        },
        imports: {
          ...author.imports,
          [SERVICE_API_SPECIFIER]: API_MODULE,
          [SCREEN_API_SPECIFIER]: SCREEN_API_MODULE,
        },
      }),
    );
    const result = await new Deno.Command(options.deno ?? Deno.execPath(), {
      args: ["check", "--no-lock", "--config", config, SCREEN_SOURCE],
      cwd: root,
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (result.success) return [];
    const output = new TextDecoder().decode(result.stderr) +
      new TextDecoder().decode(result.stdout);
    const problems = parseDiagnostics(output, root, "screen");
    if (problems.length === 0) {
      problems.push({
        rule: "type-error",
        file: SCREEN_SOURCE,
        message: `deno check failed: ${output.trim().split("\n").slice(0, 3).join(" ")}`,
        hint: "run deno check on the source to see the whole report",
      });
    }
    return problems;
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

/**
 * Type-checks the package's service source, when it has one.
 *
 * @param dir The package folder.
 * @returns One problem per diagnostic; empty when it checks or there is no source.
 */
export async function typeCheckService(
  dir: string,
  options: TypeCheckOptions = {},
): Promise<CheckProblem[]> {
  const root = resolve(dir);
  const source = options.source ?? SERVICE_SOURCE;
  try {
    await Deno.stat(join(root, source));
  } catch {
    return [];
  }
  const scratch = await Deno.makeTempDir({ prefix: "sync-check-" });
  try {
    const ambient = join(scratch, "isolate_globals.d.ts");
    await Deno.writeTextFile(ambient, ISOLATE_AMBIENT_DECLARATIONS);
    const config = join(scratch, "deno.json");
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        compilerOptions: { strict: true, lib: ["esnext"], types: [ambient] },
        imports: { ...(await readAuthorConfig(root)).imports, [SERVICE_API_SPECIFIER]: API_MODULE },
      }),
    );
    const result = await new Deno.Command(options.deno ?? Deno.execPath(), {
      args: ["check", "--no-lock", "--config", config, source],
      cwd: root,
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (result.success) return [];
    const output = new TextDecoder().decode(result.stderr) +
      new TextDecoder().decode(result.stdout);
    const problems = parseDiagnostics(output, root);
    if (problems.length === 0) {
      problems.push({
        rule: "type-error",
        file: source,
        message: `deno check failed: ${output.trim().split("\n").slice(0, 3).join(" ")}`,
        hint: "run deno check on the source to see the whole report",
      });
    }
    return problems;
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

/** Turns `deno check` output into problems, paths relative to the package. */
function parseDiagnostics(
  output: string,
  root: string,
  of: "service" | "screen" = "service",
): CheckProblem[] {
  const problems: CheckProblem[] = [];
  const lines = output.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const head = /^(TS\d+) \[ERROR\]: (.*)$/.exec(lines[i]);
    if (!head) continue;
    let place: { file: string; line: number; column: number } | undefined;
    for (let j = i + 1; j < lines.length && j < i + 40; j++) {
      if (/^TS\d+ \[ERROR\]/.test(lines[j])) break;
      const at = /^\s+at (file:\/\/\S+):(\d+):(\d+)\s*$/.exec(lines[j]);
      if (at) {
        const path = fileURLToPath(at[1]);
        const inside = relative(root, path);
        place = {
          file: inside.startsWith("..") || isAbsolute(inside) ? path : inside,
          line: Number(at[2]),
          column: Number(at[3]),
        };
        break;
      }
    }
    const message = head[2].trim();
    if (of === "screen") {
      problems.push({
        rule: "type-error",
        file: place?.file ?? SCREEN_SOURCE,
        ...(place ? { line: place.line, column: place.column } : {}),
        message: `${head[1]}: ${message}`,
        hint: "the screen source is type-checked against a browser frame's globals (the " +
          "ECMAScript library and the DOM) and @sync/extension-api/ui; fix the type error",
      });
      continue;
    }
    const missing = /^Cannot find name '([^']+)'/.exec(message);
    const name = missing?.[1];
    problems.push({
      rule: "type-error",
      file: place?.file ?? SERVICE_SOURCE,
      ...(place ? { line: place.line, column: place.column } : {}),
      message: name && !isIsolateGlobal(name)
        ? `${name} is not a global in the isolate (${head[1]}: ${
          message.replace(/ Do you need .*$/, "").replace(/\.$/, "")
        })`
        : `${head[1]}: ${message}`,
      hint: name && !isIsolateGlobal(name)
        ? missingGlobalHint(name)
        : "the service source is type-checked against the isolate's globals only (the " +
          "ECMAScript library and console); fix the type error",
    });
  }
  return problems;
}
