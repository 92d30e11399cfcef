/**
 * Reads a built service module the way the isolate will run it: which modules
 * it imports, which globals it reaches for without declaring them, and which
 * members of the extension API it uses. Scopes are resolved for real (hoisting,
 * blocks, parameters, shadowing), so a local `fetch` is not the global one.
 *
 * @module
 */
import { parse } from "acorn";

/** A place in the scanned text; lines from 1, columns from 1. */
export interface ScanPlace {
  /** The line, from 1. */
  line: number;
  /** The column, from 1. */
  column: number;
}

/** One import (static, re-export or dynamic) and where it is. */
export interface ScannedImport extends ScanPlace {
  /** The specifier, or undefined for a dynamic import of a computed value. */
  specifier: string | undefined;
  /** Whether it is an `import(…)` expression rather than an `import` or `export … from` statement. */
  dynamic: boolean;
}

/** A name used as a global: declared nowhere in the module. */
export interface FreeReference extends ScanPlace {
  /** The global's name, such as `fetch`; the place is its first use. */
  name: string;
  /** How many times the module uses it. */
  count: number;
}

/** What a scan found. */
export interface ModuleScan {
  /** Every import in source order, the extension API's included. */
  imports: ScannedImport[];
  /** Free references in order of first use, one per name; `typeof x` guards excluded. */
  free: FreeReference[];
  /**
   * First use of each API member (`work`, `net`, …) imported from
   * `apiSpecifier`. The key `*` is a use of the whole module — a dynamic
   * import of it, its namespace used as a value, a computed member of it, or
   * `export *` from it — which may reach any member.
   */
  apiUses: Map<string, ScanPlace>;
  /** Where the default export is written, when there is one. */
  defaultExport?: ScanPlace;
  /** Where each named export (not re-exports) is written. */
  namedExports: Map<string, ScanPlace>;
  /**
   * Code made from strings, which a scan cannot see into: `eval`, `Function(…)`,
   * and a call of a function's `constructor` (`(async () => {}).constructor(…)`).
   */
  dynamicCode: DynamicCode[];
}

/**
 * A use of `eval`, a call of the `Function` constructor by its name, or a
 * call of the `constructor` of what is surely a function, which is the
 * `Function` constructor or its async or generator kin.
 */
export interface DynamicCode extends ScanPlace {
  /** Which: a use of `eval`, a call of `Function` (with or without `new`), or a call of a function's `constructor`. */
  what: "eval" | "Function" | "constructor";
}

/** The {@linkcode ModuleScan.apiUses} key of a use that may reach every API member. */
export const WHOLE_API = "*";

/** A module that does not parse. */
export interface ScanSyntaxError extends ScanPlace {
  /** The parser's message, without the `(line:column)` it appends. */
  message: string;
}

// deno-lint-ignore no-explicit-any
type Node = any;

class Scope {
  readonly #names = new Map<string, string | undefined>();
  readonly #parent: Scope | undefined;
  readonly #isFunction: boolean;

  constructor(parent: Scope | undefined, isFunction: boolean) {
    this.#parent = parent;
    this.#isFunction = isFunction;
  }

  /** The enclosing scope; undefined for the module's own. */
  get parent(): Scope | undefined {
    return this.#parent;
  }

  /** Declares `name`; `apiMember` marks a binding imported from the API. */
  declare(name: string, apiMember?: string): void {
    if (!this.#names.has(name) || apiMember !== undefined) this.#names.set(name, apiMember);
  }

  /** The API member a name declared here was imported as, if any. */
  apiMember(name: string): string | undefined {
    return this.#names.get(name);
  }

  functionScope(): Scope {
    if (this.#isFunction || !this.#parent) return this;
    return this.#parent.functionScope();
  }

  /** The scope that declares `name`, or undefined when it is free. */
  resolve(name: string): Scope | undefined {
    if (this.#names.has(name)) return this;
    return this.#parent?.resolve(name);
  }
}

interface Reference {
  node: Node;
  scope: Scope;
  /** The member read off a namespace import (`api.work` → `work`). */
  member?: string;
  underTypeof: boolean;
}

/**
 * Parses `source` as an ES module and scans it.
 *
 * @param apiSpecifier The one import the isolate serves; its bindings are tracked.
 * @returns The scan, or a syntax error with its place.
 */
export function scanModule(
  source: string,
  apiSpecifier: string,
): ModuleScan | ScanSyntaxError {
  let program: Node;
  try {
    program = parse(source, { ecmaVersion: "latest", sourceType: "module", locations: true });
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    return {
      message: (error as Error).message.replace(/ \(\d+:\d+\)$/, ""),
      line: loc?.line ?? 1,
      column: (loc?.column ?? 0) + 1,
    };
  }
  const imports: ScannedImport[] = [];
  const references: Reference[] = [];
  const namespaces = new Set<string>();
  /** Reads of a member off an object that may be `globalThis` (`globalThis.fetch`, `g["fetch"]`). */
  const globalReads: {
    object: Node;
    scope: Scope;
    member: string;
    at: Node;
    underTypeof: boolean;
  }[] = [];
  /** Bindings initialised with `globalThis` itself: `const g = globalThis`. */
  const aliases: { name: string; owner: Scope | undefined; scope: Scope }[] = [];
  /** Calls of a name `Function`, which is the constructor when nothing declares it. */
  const constructed: { node: Node; scope: Scope }[] = [];
  /** Calls of `<x>.constructor(…)`: dynamic code when `x` is surely a function. */
  const constructorCalls: { object: Node; at: Node; scope: Scope }[] = [];
  /** API uses that are not references to a binding: re-exports and dynamic imports. */
  const directUses: ({ member: string } & ScanPlace)[] = [];
  const moduleScope = new Scope(undefined, true);
  let defaultExport: ScanPlace | undefined;
  const namedExports = new Map<string, ScanPlace>();

  const place = (node: Node): ScanPlace => ({
    line: node.loc.start.line,
    column: node.loc.start.column + 1,
  });

  /** Every name a binding pattern declares. */
  function patternNames(pattern: Node, out: string[] = []): string[] {
    if (!pattern) return out;
    switch (pattern.type) {
      case "Identifier":
        out.push(pattern.name);
        break;
      case "ObjectPattern":
        for (const property of pattern.properties) {
          patternNames(property.type === "RestElement" ? property.argument : property.value, out);
        }
        break;
      case "ArrayPattern":
        for (const element of pattern.elements) patternNames(element, out);
        break;
      case "RestElement":
        patternNames(pattern.argument, out);
        break;
      case "AssignmentPattern":
        patternNames(pattern.left, out);
        break;
    }
    return out;
  }

  /** Visits what a binding pattern evaluates: defaults and computed keys. */
  function visitPattern(pattern: Node, scope: Scope): void {
    if (!pattern) return;
    switch (pattern.type) {
      case "ObjectPattern":
        for (const property of pattern.properties) {
          if (property.type === "RestElement") visitPattern(property.argument, scope);
          else {
            if (property.computed) visit(property.key, scope);
            visitPattern(property.value, scope);
          }
        }
        return;
      case "ArrayPattern":
        for (const element of pattern.elements) visitPattern(element, scope);
        return;
      case "RestElement":
        visitPattern(pattern.argument, scope);
        return;
      case "AssignmentPattern":
        visitPattern(pattern.left, scope);
        visit(pattern.right, scope);
        return;
      case "Identifier":
        return;
      default:
        // A member expression as an assignment target (`for (a.b of c)`).
        visit(pattern, scope);
    }
  }

  function visitFunction(node: Node, scope: Scope): void {
    const inner = new Scope(scope, true);
    if (node.type === "FunctionExpression" && node.id) inner.declare(node.id.name);
    if (node.type !== "ArrowFunctionExpression") inner.declare("arguments");
    for (const param of node.params) {
      for (const name of patternNames(param)) inner.declare(name);
    }
    for (const param of node.params) visitPattern(param, inner);
    if (node.body.type === "BlockStatement") {
      hoist(node.body.body, inner);
      for (const statement of node.body.body) visit(statement, inner);
    } else {
      visit(node.body, inner);
    }
  }

  /** Declares what a list of statements declares before any of it is visited. */
  function hoist(statements: Node[], scope: Scope): void {
    for (const statement of statements) hoistOne(statement, scope);
  }

  function hoistOne(node: Node, scope: Scope): void {
    if (!node) return;
    switch (node.type) {
      case "VariableDeclaration": {
        const target = node.kind === "var" ? scope.functionScope() : scope;
        for (const declarator of node.declarations) {
          for (const name of patternNames(declarator.id)) target.declare(name);
        }
        return;
      }
      case "FunctionDeclaration":
      case "ClassDeclaration":
        if (node.id) scope.declare(node.id.name);
        return;
      case "ExportNamedDeclaration":
      case "ExportDefaultDeclaration":
        if (node.declaration) hoistOne(node.declaration, scope);
        return;
      case "ImportDeclaration": {
        const fromApi = node.source.value === apiSpecifier;
        for (const specifier of node.specifiers) {
          if (specifier.type === "ImportSpecifier") {
            const imported = specifier.imported.name ?? specifier.imported.value;
            scope.declare(specifier.local.name, fromApi ? imported : undefined);
          } else {
            scope.declare(specifier.local.name);
            if (fromApi && specifier.type === "ImportNamespaceSpecifier") {
              namespaces.add(specifier.local.name);
            }
          }
        }
        return;
      }
      // `var` inside nested statements still belongs to the function.
      case "IfStatement":
        hoistVar(node.consequent, scope);
        hoistVar(node.alternate, scope);
        return;
      default:
        hoistVar(node, scope);
    }
  }

  /** Finds `var` declarations nested in blocks and loops, for the function scope. */
  function hoistVar(node: Node, scope: Scope): void {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const child of node) hoistVar(child, scope);
      return;
    }
    if (typeof node.type !== "string") return;
    if (
      node.type === "FunctionDeclaration" || node.type === "FunctionExpression" ||
      node.type === "ArrowFunctionExpression" || node.type === "ClassDeclaration" ||
      node.type === "ClassExpression"
    ) return;
    if (node.type === "VariableDeclaration") {
      if (node.kind === "var") {
        for (const declarator of node.declarations) {
          for (const name of patternNames(declarator.id)) scope.functionScope().declare(name);
        }
      }
      return;
    }
    for (const key of Object.keys(node)) {
      if (key === "loc" || key === "start" || key === "end") continue;
      const child = node[key];
      if (child && typeof child === "object") hoistVar(child, scope);
    }
  }

  function blockScope(statements: Node[], scope: Scope): Scope {
    const inner = new Scope(scope, false);
    for (const statement of statements) {
      if (statement.type === "VariableDeclaration" && statement.kind !== "var") {
        for (const declarator of statement.declarations) {
          for (const name of patternNames(declarator.id)) inner.declare(name);
        }
      } else if (
        statement.type === "FunctionDeclaration" || statement.type === "ClassDeclaration"
      ) {
        if (statement.id) inner.declare(statement.id.name);
      }
    }
    return inner;
  }

  function visitSource(node: Node, dynamic: boolean): void {
    const specifier = node && node.type === "Literal" && typeof node.value === "string"
      ? node.value
      : undefined;
    imports.push({ specifier, dynamic, ...place(node) });
  }

  function visit(node: Node, scope: Scope, underTypeof = false): void {
    if (!node || typeof node !== "object") return;
    switch (node.type) {
      case "Identifier":
        references.push({ node, scope, underTypeof });
        return;
      case "ImportDeclaration":
        visitSource(node.source, false);
        return;
      case "ExportAllDeclaration":
        visitSource(node.source, false);
        if (node.source.value === apiSpecifier) {
          directUses.push({ member: WHOLE_API, ...place(node) });
        }
        return;
      case "ExportNamedDeclaration":
        if (node.source) {
          visitSource(node.source, false);
          if (node.source.value === apiSpecifier) {
            for (const specifier of node.specifiers ?? []) {
              const member = specifier.local.name ?? specifier.local.value;
              directUses.push({ member, ...place(specifier) });
            }
          }
          return;
        }
        if (node.declaration) {
          visit(node.declaration, scope);
          const declaration = node.declaration;
          if (declaration.id) namedExports.set(declaration.id.name, place(node));
          for (const declarator of declaration.declarations ?? []) {
            for (const name of patternNames(declarator.id)) {
              namedExports.set(name, place(declarator));
            }
          }
        }
        for (const specifier of node.specifiers ?? []) {
          if (specifier.local.type === "Identifier") visit(specifier.local, scope);
          const exported = specifier.exported.name ?? specifier.exported.value;
          if (exported === "default") defaultExport = place(specifier);
          else namedExports.set(exported, place(specifier));
        }
        return;
      case "ExportDefaultDeclaration":
        defaultExport = place(node);
        visit(node.declaration, scope);
        return;
      case "ImportExpression":
        visitSource(node.source, true);
        if (node.source.type === "Literal" && node.source.value === apiSpecifier) {
          directUses.push({ member: WHOLE_API, ...place(node) });
        }
        if (!(node.source.type === "Literal")) visit(node.source, scope);
        return;
      case "VariableDeclaration":
        for (const declarator of node.declarations) {
          visitPattern(declarator.id, scope);
          visit(declarator.init, scope);
          if (isGlobalThisName(declarator.init)) {
            if (declarator.id.type === "Identifier") {
              const name = declarator.id.name;
              aliases.push({ name, owner: scope.resolve(name), scope });
            } else if (declarator.id.type === "ObjectPattern") {
              // `const { fetch } = globalThis` reads fetch off the global object.
              for (const property of declarator.id.properties) {
                const member = property.type === "Property" ? keyName(property) : undefined;
                if (member !== undefined) {
                  globalReads.push({
                    object: declarator.init,
                    scope,
                    member,
                    at: property.key,
                    underTypeof: false,
                  });
                }
              }
            }
          }
        }
        return;
      case "FunctionDeclaration":
      case "FunctionExpression":
      case "ArrowFunctionExpression":
        visitFunction(node, scope);
        return;
      case "ClassDeclaration":
      case "ClassExpression": {
        const inner = new Scope(scope, false);
        if (node.id) inner.declare(node.id.name);
        visit(node.superClass, inner);
        for (const member of node.body.body) visit(member, inner);
        return;
      }
      case "MethodDefinition":
      case "PropertyDefinition":
        if (node.computed) visit(node.key, scope);
        if (node.value) {
          // A field initialiser runs like a method body: `arguments` is not the outer one.
          if (node.type === "PropertyDefinition") {
            const inner = new Scope(scope, true);
            visit(node.value, inner);
          } else visit(node.value, scope);
        }
        return;
      case "StaticBlock": {
        const inner = blockScope(node.body, new Scope(scope, true));
        hoist(node.body, inner.parent!);
        for (const statement of node.body) visit(statement, inner);
        return;
      }
      case "Property":
        if (node.computed) visit(node.key, scope);
        visit(node.value, scope);
        return;
      case "MemberExpression":
        visitMember(node, scope, underTypeof, false);
        return;
      case "CallExpression":
      case "NewExpression":
        if (node.callee.type === "Identifier" && node.callee.name === "Function") {
          constructed.push({ node: node.callee, scope });
        }
        if (node.callee.type === "MemberExpression" && memberName(node.callee) === "constructor") {
          constructorCalls.push({ object: node.callee.object, at: node.callee.property, scope });
        }
        break;
      case "UnaryExpression":
        visit(node.argument, scope, node.operator === "typeof");
        return;
      case "LabeledStatement":
        visit(node.body, scope);
        return;
      case "BreakStatement":
      case "ContinueStatement":
      case "MetaProperty":
      case "Literal":
      case "Super":
      case "ThisExpression":
      case "TemplateElement":
      case "PrivateIdentifier":
        return;
      case "BlockStatement": {
        const inner = blockScope(node.body, scope);
        for (const statement of node.body) visit(statement, inner);
        return;
      }
      case "SwitchStatement": {
        visit(node.discriminant, scope);
        const inner = blockScope(node.cases.flatMap((c: Node) => c.consequent), scope);
        for (const switchCase of node.cases) {
          visit(switchCase.test, inner);
          for (const statement of switchCase.consequent) visit(statement, inner);
        }
        return;
      }
      case "ForStatement":
      case "ForInStatement":
      case "ForOfStatement": {
        const head = node.type === "ForStatement" ? node.init : node.left;
        const inner = head && head.type === "VariableDeclaration"
          ? blockScope([head], scope)
          : new Scope(scope, false);
        if (node.type === "ForStatement") {
          visit(node.init, inner);
          visit(node.test, inner);
          visit(node.update, inner);
        } else {
          if (node.left.type === "VariableDeclaration") visit(node.left, inner);
          else visitPattern(node.left, inner);
          if (node.left.type === "Identifier") visit(node.left, inner);
          visit(node.right, inner);
        }
        visit(node.body, inner);
        return;
      }
      case "CatchClause": {
        const inner = new Scope(scope, false);
        for (const name of patternNames(node.param)) inner.declare(name);
        visitPattern(node.param, inner);
        visit(node.body, inner);
        return;
      }
      case "AssignmentExpression":
        if (node.left.type === "ObjectPattern" || node.left.type === "ArrayPattern") {
          visitAssignmentTarget(node.left, scope);
        } else if (node.operator === "=" && node.left.type === "MemberExpression") {
          visitMember(node.left, scope, false, true);
        } else visit(node.left, scope);
        visit(node.right, scope);
        return;
    }
    for (const key of Object.keys(node)) {
      if (key === "loc" || key === "start" || key === "end" || key === "type") continue;
      const child = node[key];
      if (Array.isArray(child)) {
        for (const item of child) if (item && typeof item.type === "string") visit(item, scope);
      } else if (child && typeof child.type === "string") visit(child, scope);
    }
  }

  /**
   * A member expression: a member of an API namespace is a use of that
   * member; a member read off what may be `globalThis` is a use of that
   * global (a write to it is not).
   */
  function visitMember(node: Node, scope: Scope, underTypeof: boolean, write: boolean): void {
    const literal = !node.computed
      ? node.property.name
      : node.property.type === "Literal"
      ? String(node.property.value)
      : undefined;
    if (node.object.type === "Identifier" && namespaces.has(node.object.name)) {
      // `api[k]` may be any member.
      references.push({ node: node.object, scope, member: literal ?? WHOLE_API, underTypeof });
    } else visit(node.object, scope);
    if (!write && literal !== undefined && node.object.type === "Identifier") {
      globalReads.push({
        object: node.object,
        scope,
        member: literal,
        at: node.property,
        underTypeof,
      });
    }
    if (node.computed) visit(node.property, scope);
  }

  /** A destructuring assignment's targets are references, its keys are not. */
  function visitAssignmentTarget(target: Node, scope: Scope): void {
    if (!target) return;
    switch (target.type) {
      case "ObjectPattern":
        for (const property of target.properties) {
          if (property.type === "RestElement") visitAssignmentTarget(property.argument, scope);
          else {
            if (property.computed) visit(property.key, scope);
            visitAssignmentTarget(property.value, scope);
          }
        }
        return;
      case "ArrayPattern":
        for (const element of target.elements) visitAssignmentTarget(element, scope);
        return;
      case "RestElement":
        visitAssignmentTarget(target.argument, scope);
        return;
      case "AssignmentPattern":
        visitAssignmentTarget(target.left, scope);
        visit(target.right, scope);
        return;
      default:
        visit(target, scope);
    }
  }

  hoist(program.body, moduleScope);
  for (const statement of program.body) visit(statement, moduleScope);

  const free = new Map<string, FreeReference>();
  const apiUses = new Map<string, ScanPlace>();
  const dynamicCode: DynamicCode[] = [];
  const useFree = (name: string, at: Node) => {
    const seen = free.get(name);
    if (seen) seen.count++;
    else free.set(name, { name, count: 1, ...place(at) });
  };
  // `g` is the global object when it is `globalThis` itself (and nothing declares that name),
  // or a binding initialised with it.
  const globalAliases = aliases.filter((a) => a.scope.resolve("globalThis") === undefined);
  const isGlobalObject = (object: Node, scope: Scope): boolean => {
    const owner = scope.resolve(object.name);
    if (owner === undefined) return object.name === "globalThis";
    return globalAliases.some((a) => a.owner === owner && a.name === object.name);
  };
  const globalUses: { name: string; at: Node; underTypeof: boolean }[] = [];
  for (const read of globalReads) {
    if (isGlobalObject(read.object, read.scope)) {
      globalUses.push({ name: read.member, at: read.at, underTypeof: read.underTypeof });
    }
  }
  for (const { node, scope } of constructed) {
    if (scope.resolve("Function") === undefined) {
      dynamicCode.push({ what: "Function", ...place(node) });
    }
  }
  for (const use of globalUses) {
    if (use.name === "eval") dynamicCode.push({ what: "eval", ...place(use.at) });
  }
  for (const { object, at, scope } of constructorCalls) {
    if (surelyFunction(object, scope)) dynamicCode.push({ what: "constructor", ...place(at) });
  }
  for (const reference of references) {
    const name: string = reference.node.name;
    const owner = reference.scope.resolve(name);
    if (owner === undefined) {
      if (reference.underTypeof) continue;
      if (name === "eval") dynamicCode.push({ what: "eval", ...place(reference.node) });
      useFree(name, reference.node);
      continue;
    }
    if (owner !== moduleScope) continue;
    // A namespace used as a value (`const { work } = api`, `f(api)`) may reach every member.
    const member = namespaces.has(name) ? reference.member ?? WHOLE_API : owner.apiMember(name);
    if (member !== undefined) useApi(apiUses, member, place(reference.node));
  }
  for (const { member, line, column } of directUses) useApi(apiUses, member, { line, column });
  for (const use of globalUses) if (!use.underTypeof) useFree(use.name, use.at);
  const inOrder = (a: ScanPlace, b: ScanPlace) => a.line - b.line || a.column - b.column;
  return {
    imports,
    free: [...free.values()].sort(inOrder),
    apiUses,
    defaultExport,
    namedExports,
    dynamicCode: dynamicCode.sort(inOrder),
  };
}

/**
 * Whether an expression is surely a function, so that its `constructor` is
 * the `Function` constructor or its async or generator kin: a function or
 * class written in place, the global `Function` or `Function.prototype`, or
 * the prototype of such a function read with `Object.getPrototypeOf` or
 * `Reflect.getPrototypeOf`. What a name holds is not followed: the rule is
 * advice for authors, and the isolate is what bounds code made from strings.
 */
function surelyFunction(node: Node, scope: Scope): boolean {
  const global = (name: string) =>
    node.type === "Identifier" && node.name === name && scope.resolve(name) === undefined;
  switch (node.type) {
    case "FunctionExpression":
    case "ArrowFunctionExpression":
    case "ClassExpression":
      return true;
    case "Identifier":
      return global("Function");
    case "MemberExpression":
      return memberName(node) === "prototype" && node.object.type === "Identifier" &&
        surelyFunction(node.object, scope);
    case "CallExpression": {
      const callee = node.callee;
      return callee.type === "MemberExpression" && memberName(callee) === "getPrototypeOf" &&
        callee.object.type === "Identifier" &&
        (callee.object.name === "Object" || callee.object.name === "Reflect") &&
        scope.resolve(callee.object.name) === undefined &&
        node.arguments.length > 0 && surelyFunction(node.arguments[0], scope);
    }
  }
  return false;
}

/** The name a member expression reads, when it is written out (`a.b`, `a["b"]`). */
function memberName(node: Node): string | undefined {
  if (!node.computed) return node.property.name;
  return node.property.type === "Literal" ? String(node.property.value) : undefined;
}

/** Whether `node` is the bare name `globalThis` (resolved later: it may be shadowed). */
function isGlobalThisName(node: Node): boolean {
  return node?.type === "Identifier" && node.name === "globalThis";
}

/** The name a non-computed object pattern property reads. */
function keyName(property: Node): string | undefined {
  if (property.computed) return undefined;
  if (property.key.type === "Identifier") return property.key.name;
  if (property.key.type === "Literal") return String(property.key.value);
  return undefined;
}

/** Keeps the first place, in the text, of each API member's use. */
function useApi(uses: Map<string, ScanPlace>, member: string, at: ScanPlace): void {
  const seen = uses.get(member);
  if (!seen || at.line < seen.line || (at.line === seen.line && at.column < seen.column)) {
    uses.set(member, at);
  }
}
