/**
 * `deno task build:ui`: bundles the browser app in `ui/` into `ui/dist/`,
 * which is committed, so a fresh clone's `serve` answers the page with no
 * build step and no tool beyond Deno. `tests/dev/ui_bundle_test.ts` bundles
 * again and fails when the committed files differ from what the sources make.
 *
 * - `ui/dist/app.js`: `ui/main.tsx` and everything it imports (Preact,
 *   signals), bundled by `deno bundle` for the browser and minified.
 * - `ui/dist/app.css`: `ui/styles/base.css`, then every other `.css` file of
 *   `ui/styles/` in name order.
 * - `ui/dist/screen.js`: the screen runtime served into a package's screen
 *   frame (`ui/screens/screen_runtime.ts`), bundled and minified likewise.
 * - `ui/dist/screen.css`: the style sheet of a screen's frame:
 *   `ui/styles/base.css` (the app's tokens and base classes), then
 *   `ui/screens/screen.css`.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** Options for {@linkcode bundleUi}. */
export interface BundleUiOptions {
  /** The app's folder (holding `main.tsx` and `styles/`); the repository's `ui/` unless given. */
  uiDir?: string;
  /** Where `app.js` and `app.css` are written; `<uiDir>/dist` unless given. */
  outDir?: string;
}

/** What a bundle wrote. */
export interface BundleUiResult {
  /** The script's path, size and gzipped size in bytes. */
  script: { path: string; bytes: number; gzipBytes: number };
  /** The style sheet's path, size and gzipped size in bytes. */
  styles: { path: string; bytes: number; gzipBytes: number };
  /** The screen runtime's path, size and gzipped size in bytes. */
  screenScript: { path: string; bytes: number; gzipBytes: number };
  /** The screen frame's style sheet's path, size and gzipped size in bytes. */
  screenStyles: { path: string; bytes: number; gzipBytes: number };
}

/**
 * Bundles the app's script and style sheet.
 *
 * @param options Where the app is and where the bundle goes.
 * @returns The files written, with their sizes.
 * @throws {Error} when `deno bundle` fails, with its output.
 */
export async function bundleUi(options: BundleUiOptions = {}): Promise<BundleUiResult> {
  const uiDir = options.uiDir ?? fileURLToPath(new URL("../../ui/", import.meta.url));
  const outDir = options.outDir ?? join(uiDir, "dist");
  await Deno.mkdir(outDir, { recursive: true });
  const scriptPath = join(outDir, "app.js");
  await bundleScript(join(uiDir, "main.tsx"), scriptPath);
  const screenScriptPath = join(outDir, "screen.js");
  await bundleScript(join(uiDir, "screens", "screen_runtime.ts"), screenScriptPath);
  const stylesDir = join(uiDir, "styles");
  const names: string[] = [];
  for await (const entry of Deno.readDir(stylesDir)) {
    if (entry.isFile && entry.name.endsWith(".css") && entry.name !== "base.css") {
      names.push(entry.name);
    }
  }
  names.sort();
  const parts: string[] = [];
  for (const name of ["base.css", ...names]) {
    parts.push(`/* ${name} */\n${await Deno.readTextFile(join(stylesDir, name))}`);
  }
  const stylesPath = join(outDir, "app.css");
  await Deno.writeTextFile(stylesPath, parts.join("\n"));
  const screenStylesPath = join(outDir, "screen.css");
  await Deno.writeTextFile(
    screenStylesPath,
    [
      `/* base.css */\n${await Deno.readTextFile(join(stylesDir, "base.css"))}`,
      `/* screen.css */\n${await Deno.readTextFile(join(uiDir, "screens", "screen.css"))}`,
    ].join("\n"),
  );
  return {
    script: await sized(scriptPath),
    styles: await sized(stylesPath),
    screenScript: await sized(screenScriptPath),
    screenStyles: await sized(screenStylesPath),
  };
}

/** Bundles one entry for the browser, minified, into `out`. */
async function bundleScript(entry: string, out: string): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "browser", "--minify", "-o", out, entry],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const said = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
    throw new Error(`Cannot bundle ${entry}: deno bundle failed:\n${said}`);
  }
}

/** A file's size, plain and gzipped. */
async function sized(path: string): Promise<{ path: string; bytes: number; gzipBytes: number }> {
  const bytes = await Deno.readFile(path);
  return { path, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
}

if (import.meta.main) {
  const { script, styles, screenScript, screenStyles } = await bundleUi();
  for (const file of [script, styles, screenScript, screenStyles]) {
    console.log(
      `Wrote ${file.path}: ${(file.bytes / 1024).toFixed(1)} KB ` +
        `(${(file.gzipBytes / 1024).toFixed(1)} KB gzipped)`,
    );
  }
}
