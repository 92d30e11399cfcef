/**
 * The parts of an author's `deno.json` that building and type-checking a
 * package honour: its import map and its compiler options. Everything else in
 * it (unstable features such as raw imports, lock files, tasks) is left out,
 * so what a package may pull in does not depend on settings it brings along.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** What a build and a type-check take from an author's `deno.json`. */
export interface AuthorConfig {
  /** Its `imports`, relative targets made absolute `file:` URLs. */
  imports: Record<string, string>;
  /** Its `compilerOptions`, as written. */
  compilerOptions: Record<string, unknown>;
}

/**
 * Reads the `deno.json` in `root`, or the nearest one above it (the one the
 * author's editor uses). A missing or unreadable file gives an empty config.
 *
 * @param root The package folder.
 */
export async function readAuthorConfig(root: string): Promise<AuthorConfig> {
  let folder = resolve(root);
  for (;;) {
    const file = join(folder, "deno.json");
    let text: string | undefined;
    try {
      text = await Deno.readTextFile(file);
    } catch { /* not here; look above */ }
    if (text !== undefined) return parseAuthorConfig(text, folder);
    const parent = dirname(folder);
    if (parent === folder) return { imports: {}, compilerOptions: {} };
    folder = parent;
  }
}

function parseAuthorConfig(text: string, folder: string): AuthorConfig {
  let value: { imports?: unknown; compilerOptions?: unknown };
  try {
    value = JSON.parse(text);
  } catch {
    return { imports: {}, compilerOptions: {} };
  }
  // Made an object by defining each specifier, so every one the author maps
  // is kept as it is named, `__proto__` included.
  const mapped = new Map<string, string>();
  if (value?.imports && typeof value.imports === "object") {
    for (const [key, target] of Object.entries(value.imports)) {
      if (typeof target !== "string") continue;
      mapped.set(
        key,
        target.startsWith("./") || target.startsWith("../")
          ? pathToFileURL(resolve(folder, target)).href + (target.endsWith("/") ? "/" : "")
          : target,
      );
    }
  }
  const imports: Record<string, string> = Object.fromEntries(mapped);
  const compilerOptions = value?.compilerOptions && typeof value.compilerOptions === "object"
    ? { ...value.compilerOptions as Record<string, unknown> }
    : {};
  return { imports, compilerOptions };
}
