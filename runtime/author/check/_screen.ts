/**
 * What check can know of a built screen before it is shown: it is one ES
 * module that imports nothing (the build bundles everything it uses, and
 * its frame may load no other script), it exports `activate`, it makes no
 * code from strings (the frame's policy refuses `eval`), and it reaches for
 * no global a screen's frame lacks — Deno's or Node's, or a connection of its
 * own, which the frame's policy blocks and `ctx` replaces.
 *
 * @module
 */
import { scanModule } from "./_scan.ts";
import type { CheckProblem } from "./problem.ts";
import { readPackageText } from "../../packages/mod.ts";

/** The specifier of the screen's typed API. */
const SCREEN_API_SPECIFIER = "@sync/extension-api/ui";

/** Globals a screen has no use for, and what to write instead. */
const UNAVAILABLE: Readonly<Record<string, string>> = Object.freeze({
  Deno: "a screen runs in a browser frame, not in Deno; reach the host through ctx",
  process: "a screen runs in a browser frame, not in Node; reach the host through ctx",
  require: "a screen is an ES module: import what it needs and let deno task build bundle it",
  Bun: "a screen runs in a browser frame; reach the host through ctx",
  fetch: "the frame may open no connection: use ctx.net.fetch for the hosts the manifest " +
    "declares, and ctx.handlers.call or ctx.memory for Sync",
  XMLHttpRequest: "the frame may open no connection: use ctx.net.fetch",
  WebSocket: "the frame may open no connection: use ctx.net.fetch, or ctx.host.spawn for a " +
    "declared program",
  EventSource: "the frame may open no connection: read again with ctx.memory",
  importScripts: "the frame may load no script but its own module",
});

/**
 * The problems of the built screen `file` (the manifest's `ui`).
 *
 * @param dir The package folder.
 * @param file The built screen, relative to `dir`.
 * @returns Every problem, in file order; empty when it is clean.
 */
export async function screenProblems(dir: string, file: string): Promise<CheckProblem[]> {
  let source: string;
  try {
    source = await readPackageText(dir, file);
  } catch {
    return []; // The manifest check says the file is missing.
  }
  const scan = scanModule(source, SCREEN_API_SPECIFIER);
  if (!("imports" in scan)) {
    return [{
      rule: "screen-syntax",
      file,
      line: scan.line,
      column: scan.column,
      message: `does not parse as an ES module: ${scan.message}`,
      hint: "the screen's frame loads it as a module; deno task build writes it from src/index.tsx",
    }];
  }
  const problems: CheckProblem[] = [];
  for (const found of scan.imports) {
    problems.push({
      rule: "screen-import",
      file,
      line: found.line,
      column: found.column,
      message: found.specifier === undefined
        ? "imports a computed module name; a screen imports nothing"
        : `imports "${found.specifier}"${
          found.dynamic ? " dynamically" : ""
        }; a screen imports nothing`,
      hint: found.specifier === SCREEN_API_SPECIFIER
        ? `import its types only (import type { ScreenContext } from "${SCREEN_API_SPECIFIER}"): ` +
          "everything a screen reaches is handed to its activate(ctx)"
        : "the frame loads no other script: deno task build bundles whatever src/index.tsx " +
          "imports into the one module",
    });
  }
  if (!scan.namedExports.has("activate")) {
    problems.push({
      rule: "screen-activate",
      file,
      ...(scan.defaultExport ?? { line: 1, column: 1 }),
      message: "exports no activate function",
      hint: "export async function activate(ctx: ScreenContext) from src/index.tsx: Sync calls " +
        "it with the screen's ctx once the frame is ready",
    });
  }
  for (const free of scan.free) {
    const hint = Object.hasOwn(UNAVAILABLE, free.name) ? UNAVAILABLE[free.name] : undefined;
    if (hint === undefined) continue;
    problems.push({
      rule: "screen-global",
      file,
      line: free.line,
      column: free.column,
      message: `uses ${free.name}, which a screen's frame does not offer` +
        (free.count > 1 ? ` (${free.count} places; the first is here)` : ""),
      hint,
    });
  }
  for (const code of scan.dynamicCode) {
    problems.push({
      rule: "screen-dynamic-code",
      file,
      line: code.line,
      column: code.column,
      message: code.what === "eval"
        ? "uses eval, which the frame's policy refuses"
        : "makes a function from a string, which the frame's policy refuses",
      hint: "write the code in the module itself",
    });
  }
  return problems.sort((a, b) =>
    (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)
  );
}
