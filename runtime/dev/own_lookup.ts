/**
 * A lint rule: a name from outside is looked up as an own property only.
 *
 * A plain object answers to every name on `Object.prototype` (`toString`,
 * `constructor`, `__proto__`, …) without holding it, so `name in table` and
 * `TABLE[name]` are true, or find a function, for names nobody put there. The
 * rule finds
 *
 * - the `in` operator, unless its left side is a string literal that is not
 *   such a name (`"exit" in line` tells apart the members of a union);
 * - a computed read of a constant table (a `SCREAMING_CASE` name) by a key
 *   that is neither a literal nor arithmetic, unless an `Object.hasOwn` of
 *   that table guards it (`Object.hasOwn(T, k) ? T[k] : undefined`).
 *
 * What it reports is fixed with `Object.hasOwn`, a `Map`, or an object made
 * with `Object.fromEntries` or without a prototype; {@linkcode OWN_LOOKUP_ALLOWED}
 * lists the few places left as they are, and why. `tests/dev/own_lookup_test.ts`
 * runs it over `runtime/`, `workers/` and `ui/`.
 *
 * @module
 */

/** A place the rule reports but that is left as it is. */
export interface AllowedLookup {
  /** The file, relative to the repository. */
  file: string;
  /** The expression as written there. */
  text: string;
  /** Why no name from outside reaches it. */
  why: string;
}

/** The places left as they are: keyed by a value the code itself made, never by one from outside. */
export const OWN_LOOKUP_ALLOWED: readonly AllowedLookup[] = [
  {
    file: "runtime/extensions/lamp.ts",
    text: "LABELS[state]",
    why: "state is one of the lamp's states, chosen by the function just above",
  },
  {
    file: "runtime/packages/every.ts",
    text: "UNIT_MS[match[2]]",
    why: "the unit is what EVERY_PATTERN matched: m, h or d",
  },
  {
    file: "runtime/internal/id.ts",
    text: "HEX[random[i]]",
    why: "an array of 256 strings indexed by a byte",
  },
];

/** Every name a plain object answers to without holding it. */
const INHERITED = new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"]);

/** Operators whose result is a number: a key made with them indexes an array. */
const ARITHMETIC = new Set(["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", ">>>"]);

const CONSTANT_TABLE = /^[A-Z][A-Z0-9_]*$/;

/** The message of a report: what was found, and what to use instead. */
export const OWN_LOOKUP_MESSAGE = {
  in: "`in` finds names every object inherits (toString, constructor, __proto__); " +
    "use Object.hasOwn(object, name) or a Map",
  table: "a constant table read by a key from elsewhere finds names every object inherits; " +
    "guard it with Object.hasOwn(table, key) or make it a Map",
} as const;

type Node = Deno.lint.Node;

/** True when `inner` lies within `outer`. */
function within(inner: Node, outer: Node): boolean {
  return inner.range[0] >= outer.range[0] && inner.range[1] <= outer.range[1];
}

/** True when a test guarding `node` asks `Object.hasOwn(table, …)`. */
function guarded(node: Node, table: string, text: (node: Node) => string): boolean {
  const asks = new RegExp(`Object\\.hasOwn\\(\\s*${table}\\s*,`);
  const parentOf = (of: Node) => (of as { parent?: Node }).parent;
  for (let at = parentOf(node); at; at = parentOf(at)) {
    if (at.type === "ConditionalExpression" || at.type === "IfStatement") {
      if (within(node, at.consequent) && asks.test(text(at.test))) return true;
    } else if (at.type === "LogicalExpression" && at.operator === "&&") {
      if (within(node, at.right) && asks.test(text(at.left))) return true;
    } else if (
      at.type === "FunctionDeclaration" || at.type === "FunctionExpression" ||
      at.type === "ArrowFunctionExpression"
    ) return false;
  }
  return false;
}

/** True for a key that is a number: a literal, or arithmetic. */
function numericKey(key: Node): boolean {
  return (key.type === "Literal" && typeof key.value === "number") ||
    (key.type === "BinaryExpression" && ARITHMETIC.has(key.operator)) ||
    key.type === "UpdateExpression";
}

/** The rule, as a Deno lint plugin (run with `Deno.lint.runPlugin` in a test). */
export const OWN_LOOKUP_PLUGIN: Deno.lint.Plugin = {
  name: "sync",
  rules: {
    "own-lookup": {
      create(context) {
        const text = (node: Node) => context.sourceCode.getText(node);
        return {
          BinaryExpression(node) {
            if (node.operator !== "in") return;
            const left = node.left;
            if (
              left.type === "Literal" && typeof left.value === "string" &&
              !INHERITED.has(left.value)
            ) return;
            context.report({ node, message: OWN_LOOKUP_MESSAGE.in });
          },
          MemberExpression(node) {
            if (!node.computed || node.object.type !== "Identifier") return;
            const table = node.object.name;
            if (!CONSTANT_TABLE.test(table)) return;
            const key = node.property;
            if (key.type === "Literal" && !INHERITED.has(String(key.value))) return;
            if (numericKey(key) || guarded(node, table, text)) return;
            context.report({ node, message: OWN_LOOKUP_MESSAGE.table });
          },
        };
      },
    },
  },
};
