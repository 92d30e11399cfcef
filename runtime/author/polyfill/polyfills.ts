/**
 * Built-ins the isolate lacks and a build provides, each a pure module with
 * no authority: when a bundled service module uses one of these names as a
 * global (an npm library calling `new TextDecoder("latin1")`, say), the build
 * puts the module's implementation in front of it as a module-level binding
 * of that name. Nothing global changes, a module that does not use the name
 * does not carry it, and check scans the result like any other code.
 *
 * @module
 */
import { parse } from "acorn";

/** One built-in a build provides. */
export interface Polyfill {
  /** The global's name, such as `TextDecoder`. */
  name: string;
  /** The module implementing it. */
  module: string;
  /** The name that module exports it as. */
  exported: string;
}

/** Every built-in a build provides, by the global's name. */
export const POLYFILLS: ReadonlyMap<string, Polyfill> = new Map([
  ["TextDecoder", {
    name: "TextDecoder",
    module: new URL("./pure_text_decoder.ts", import.meta.url).href,
    exported: "PureTextDecoder",
  }],
  ["TextEncoder", {
    name: "TextEncoder",
    module: new URL("./pure_text_encoder.ts", import.meta.url).href,
    exported: "PureTextEncoder",
  }],
]);

/**
 * The provided built-ins a bundled module uses without declaring them at its
 * top level, in the order of {@linkcode POLYFILLS}.
 *
 * @param code The bundled ES module.
 * @returns The polyfills to put in front of it; empty when it uses none, or does not parse
 *   (check reports that).
 */
export function polyfillsUsed(code: string): Polyfill[] {
  // deno-lint-ignore no-explicit-any
  let program: any;
  try {
    program = parse(code, { ecmaVersion: "latest", sourceType: "module" });
  } catch {
    return [];
  }
  const declared = new Set<string>();
  for (const statement of program.body) {
    for (const name of topLevelNames(statement)) declared.add(name);
  }
  const used = new Set<string>();
  walk(program, (node, parent) => {
    if (node.type !== "Identifier" || !POLYFILLS.has(node.name)) return;
    if (parent?.type === "MemberExpression" && parent.property === node && !parent.computed) {
      return;
    }
    if (
      (parent?.type === "Property" || parent?.type === "MethodDefinition" ||
        parent?.type === "PropertyDefinition") &&
      parent.key === node && !parent.computed &&
      !(parent.type === "Property" && parent.shorthand)
    ) return;
    used.add(node.name);
  });
  return [...POLYFILLS.values()].filter((p) => used.has(p.name) && !declared.has(p.name));
}

/**
 * The text put in front of a bundle for `polyfills`, given each one's module
 * bundled alone (an ES module ending in its `export { … }`): one
 * `const <name> = (() => { … })();` each, so its own names stay its own.
 *
 * @param bundled Each polyfill's module bundled by itself, in the same order.
 */
export function polyfillPrelude(
  polyfills: readonly Polyfill[],
  bundled: readonly string[],
): string {
  return polyfills.map((polyfill, i) => {
    const body = bundled[i]
      .replace(/\nexport\s*\{[^}]*\};?\s*$/, "\n")
      .split("\n")
      .filter((line) => !line.startsWith("// "))
      .join("\n")
      .trim();
    return `// ${polyfill.name}: provided by the build, a pure implementation with no authority\n` +
      `const ${polyfill.name} = (() => {\n${body}\nreturn ${polyfill.exported};\n})();\n`;
  }).join("");
}

// deno-lint-ignore no-explicit-any
function topLevelNames(statement: any): string[] {
  const node = statement.type === "ExportNamedDeclaration" && statement.declaration
    ? statement.declaration
    : statement;
  if (node.type === "FunctionDeclaration" || node.type === "ClassDeclaration") {
    return node.id ? [node.id.name] : [];
  }
  if (node.type === "VariableDeclaration") {
    const names: string[] = [];
    for (const declarator of node.declarations) {
      walk(declarator.id, (n) => {
        if (n.type === "Identifier") names.push(n.name);
      });
    }
    return names;
  }
  if (node.type === "ImportDeclaration") {
    // deno-lint-ignore no-explicit-any
    return node.specifiers.map((s: any) => s.local.name);
  }
  return [];
}

// deno-lint-ignore no-explicit-any
function walk(node: any, visit: (node: any, parent: any) => void, parent: any = undefined): void {
  visit(node, parent);
  for (const key of Object.keys(node)) {
    if (key === "loc" || key === "start" || key === "end") continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) {
        if (item && typeof item.type === "string") walk(item, visit, node);
      }
    } else if (value && typeof value.type === "string") walk(value, visit, node);
  }
}
