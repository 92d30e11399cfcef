/**
 * What a build needs to know about the npm packages a service module or a
 * screen imports: that each is named with an exact version, and which of
 * them, once bundled, still reaches for a Node built-in (`node:fs`,
 * `node:net`, …) that neither the isolate nor a screen's frame can give.
 *
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";

/** One npm package in a module graph, as `deno info --json` lists it. */
export interface NpmPackage {
  /** Its name, such as `ms` or `@scope/name`. */
  name: string;
  /** The version resolved, such as `2.1.3`. */
  version: string;
  /** Where Deno's cache holds its files. */
  localPath: string;
}

/** A Node built-in a bundled npm package imports. */
export interface NodeBuiltinUse {
  /** The package that imports it, as `npm:name@version`; undefined when the bundle does not say. */
  from: string | undefined;
  /** The built-in, such as `node:fs`. */
  builtin: string;
}

/**
 * Why an `npm:` specifier cannot be built, or undefined when it can: a build
 * bundles a named version, so a package builds the same on every machine
 * (`npm:ms@2.1.3`, not `npm:ms` or `npm:ms@^2`).
 *
 * @param specifier The resolved specifier, such as `npm:ms@2.1.3` or `npm:@scope/x@1.0.0/sub`.
 */
export function npmVersionProblem(specifier: string): string | undefined {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@([^/]*))?/.exec(specifier);
  if (!match) return `it is not an npm package name`;
  const version = match[2];
  if (version !== undefined && /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/.test(version)) {
    return undefined;
  }
  return `it names ${version ? `the range ${version}` : "no version"} of ${match[1]}; ` +
    `name one exact version, as "npm:${match[1]}@1.2.3", in the import or in the package's ` +
    `deno.json "imports", so the package builds the same everywhere`;
}

/**
 * The Node built-ins a bundle still imports, each with the npm package whose
 * code does. The bundler leaves a built-in it cannot bundle as an import or a
 * `require` of `node:<name>`, under the comment naming the file it came from.
 *
 * @param code The bundled module.
 * @param root The folder the bundler ran in; the comments' paths are relative to it.
 * @param packages The npm packages of the graph.
 */
export function nodeBuiltinUses(
  code: string,
  root: string,
  packages: readonly NpmPackage[],
): NodeBuiltinUse[] {
  const uses: NodeBuiltinUse[] = [];
  const seen = new Set<string>();
  const pattern = /(?:[\w$]*require[\w$]*\(\s*|\bfrom\s*|\bimport\s*\(?\s*)["'](node:[^"']+)["']/g;
  for (const match of code.matchAll(pattern)) {
    const from = packageAt(code, match.index, root, packages);
    const key = `${from} ${match[1]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    uses.push({ from, builtin: match[1] });
  }
  return uses;
}

/** The package whose file the bundler's last `// <path>` comment before `index` names. */
function packageAt(
  code: string,
  index: number,
  root: string,
  packages: readonly NpmPackage[],
): string | undefined {
  const before = code.slice(0, index);
  const comments = [...before.matchAll(/^\/\/ (\S[^\n]*)$/gm)];
  for (let i = comments.length - 1; i >= 0; i--) {
    const path = resolve(root, comments[i][1]);
    const found = packages.find((p) => isWithin(p.localPath, path));
    if (found) return `npm:${found.name}@${found.version}`;
  }
  return undefined;
}

/**
 * The bundle with each npm package's place in this machine's cache written as
 * `npm:name@version`: the bundler names every file it bundles by its path,
 * and a built package should not carry the author's home folder.
 *
 * @param code The bundled module.
 * @param root The folder the bundler ran in.
 * @param packages The npm packages of the graph.
 */
export function withoutCachePaths(
  code: string,
  root: string,
  packages: readonly NpmPackage[],
): string {
  let out = code;
  for (const p of packages) {
    const inside = relative(root, p.localPath).replaceAll("\\", "/");
    for (const path of new Set([inside, p.localPath.replaceAll("\\", "/")])) {
      if (path !== "") out = out.replaceAll(`${path}/`, `npm:${p.name}@${p.version}/`);
    }
  }
  return out;
}

function isWithin(folder: string, path: string): boolean {
  const inside = relative(folder, path);
  return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside);
}
