/**
 * The public shape of `@sync/extension-api/*`, reduced from `deno doc --json`
 * to names and types as text: what `runtime/dev/api_report.ts` writes into
 * the checked-in report and `runtime/dev/api_bump.ts` compares.
 *
 * The reduction keeps what an author compiles against — each export's name,
 * kind and type, each interface member with its type and optionality — and
 * drops what moves without the API changing: line numbers, file paths, doc
 * comments, declaration order (exports and members are sorted by name).
 *
 * `deno doc --json` has no stable schema. This reads its format version 2
 * (Deno 2.x) and refuses, by name, a format or a kind of declaration it does
 * not know, rather than leaving a part of the API out of the report.
 *
 * @module
 */
import { type ApiRole, apiRoles } from "./api_roles.ts";

/** One member of an interface, as a line of text. */
export interface ApiMember {
  /** The member's name (`title`, `list`, `[name: string]`, `()` for a call signature). */
  key: string;
  /** The member as TypeScript, such as `title?: string` or `list(query?: RecordQuery): Promise<RecordPage>`. */
  text: string;
  /** Whether the member may be left out (`title?`). */
  optional: boolean;
}

/** One declaration an entry module exports. */
export interface ApiSymbol {
  /** The exported name. */
  name: string;
  /** The declaration as one line of TypeScript, such as `const memory: MemoryApi`. */
  text: string;
  /** Who makes the values of an interface; absent for other kinds. */
  role?: ApiRole;
  /** An interface's or class's members, sorted by key; empty for other kinds. */
  members: ApiMember[];
}

/** One entry of `@sync/extension-api/*` and what it exports, sorted by name. */
export interface ApiModule {
  /** The specifier a package imports, such as `@sync/extension-api/service`. */
  specifier: string;
  /** Its exports, sorted by name; overloads keep their order. */
  symbols: ApiSymbol[];
}

/** The whole public shape and the `API_VERSION` it was made for. */
export interface ApiShape {
  /** The `API_VERSION` every entry exports. */
  version: string;
  /** The entries, sorted by specifier. */
  modules: ApiModule[];
}

/** An entry of the API: the specifier packages import and the file it maps to. */
export interface ApiEntry {
  /** Such as `@sync/extension-api/service`. */
  specifier: string;
  /** The `file:` URL of the module, as `deno doc --json` keys its nodes. */
  url: string;
}

/** The `deno doc --json` format version this reads. */
const DOC_FORMAT = 2;

// deno doc's JSON is untyped: these are the few shapes read here.
// deno-lint-ignore no-explicit-any
type Json = any;

/**
 * Reduces the output of `deno doc --json <entry files>` to the API's shape.
 * Throws when the format, a declaration kind or the `API_VERSION`s are not
 * what the report can describe.
 */
export function reduceApiShape(output: unknown, entries: ApiEntry[]): ApiShape {
  const doc: Json = output;
  if (doc?.version !== DOC_FORMAT || typeof doc.nodes !== "object" || doc.nodes === null) {
    throw new Error(
      `deno doc --json answered format version ${String(doc?.version)}, and the API report ` +
        `reads version ${DOC_FORMAT}: check what changed in its output and update ` +
        `runtime/dev/api_shape.ts`,
    );
  }
  const bySpecifierUrl = new Map(entries.map((entry) => [entry.url, entry.specifier]));
  const declarations = new Map<string, Json[]>();
  const modules: { entry: ApiEntry; symbols: Json[] }[] = [];
  for (const entry of [...entries].sort((a, b) => compareText(a.specifier, b.specifier))) {
    const node = Object.hasOwn(doc.nodes, entry.url) ? doc.nodes[entry.url] : undefined;
    if (!node) throw new Error(`deno doc --json said nothing of ${entry.specifier} (${entry.url})`);
    const symbols = (node.symbols ?? []).filter((symbol: Json) =>
      symbol.declarations.some((d: Json) => d.declarationKind === "export")
    );
    for (const symbol of symbols) {
      for (const declaration of symbol.declarations) {
        if (declaration.kind === "reference") continue;
        declarations.set(symbol.name, [...(declarations.get(symbol.name) ?? []), declaration]);
      }
    }
    modules.push({ entry, symbols });
  }

  const roles = apiRoles(declarations);
  const versions = new Map<string, string>();
  const shape: ApiShape = { version: "", modules: [] };
  for (const { entry, symbols } of modules) {
    const out: ApiSymbol[] = [];
    const imports = new Map<string, string>(
      (doc.nodes[entry.url].imports ?? []).map((i: Json) => [i.importedName, i.originalName]),
    );
    for (const symbol of [...symbols].sort((a, b) => compareText(a.name, b.name))) {
      for (const declaration of symbol.declarations) {
        if (declaration.declarationKind !== "export") continue;
        if (symbol.name === "API_VERSION" && declaration.def?.tsType?.kind === "literal") {
          versions.set(entry.specifier, String(declaration.def.tsType.repr));
          out.push({ name: symbol.name, text: "const API_VERSION: string", members: [] });
          continue;
        }
        if (declaration.kind === "reference") {
          const from = bySpecifierUrl.get(declaration.def?.target?.filename);
          if (from === undefined) {
            throw new Error(
              `${entry.specifier} re-exports ${symbol.name} from ${declaration.def?.target?.filename}, ` +
                `which is not an entry of @sync/extension-api: declare it in an entry file so ` +
                `the API report sees its shape`,
            );
          }
          const original = imports.get(symbol.name) ?? symbol.name;
          const renamed = original === symbol.name ? "" : ` (${original})`;
          out.push({
            name: symbol.name,
            text: `export ${symbol.name}${renamed} from "${from}"`,
            members: [],
          });
          continue;
        }
        out.push(symbolShape(symbol.name, declaration, roles.get(symbol.name)));
      }
    }
    shape.modules.push({ specifier: entry.specifier, symbols: out });
  }

  const found = [...new Set(versions.values())];
  if (found.length !== 1) {
    throw new Error(
      found.length === 0
        ? "no entry of @sync/extension-api exports API_VERSION as a string literal"
        : `the entries of @sync/extension-api disagree on API_VERSION (${
          [...versions].map(([specifier, version]) => `${specifier}: ${version}`).join(", ")
        }): give every entry the same version`,
    );
  }
  shape.version = found[0];
  return shape;
}

/** One exported declaration's line and members. */
function symbolShape(name: string, declaration: Json, role: ApiRole | undefined): ApiSymbol {
  const def = declaration.def ?? {};
  switch (declaration.kind) {
    case "variable":
      return { name, text: `${def.kind ?? "const"} ${name}: ${typeText(def.tsType)}`, members: [] };
    case "typeAlias":
      return {
        name,
        text: `type ${name}${typeParamsText(def.typeParams)} = ${typeText(def.tsType)}`,
        members: [],
      };
    case "function":
      return { name, text: `function ${name}${signatureText(def, def.returnType)}`, members: [] };
    case "interface": {
      const extendsText = (def.extends ?? []).length > 0
        ? ` extends ${def.extends.map(typeText).join(", ")}`
        : "";
      return {
        name,
        text: `interface ${name}${typeParamsText(def.typeParams)}${extendsText}`,
        role: role ?? "author",
        members: membersOf(def, `interface ${name}`),
      };
    }
    case "class": {
      const extendsText = def.extends ? ` extends ${def.extends}` : "";
      const implementsText = (def.implements ?? []).length > 0
        ? ` implements ${def.implements.map(typeText).join(", ")}`
        : "";
      const members = membersOf(
        { ...def, constructors: undefined },
        `class ${name}`,
      ).concat((def.constructors ?? []).map((c: Json) => member(`new${signatureText(c, null)}`)));
      return {
        name,
        text: `class ${name}${typeParamsText(def.typeParams)}${extendsText}${implementsText}`,
        members: members.sort((a, b) => compareText(a.key, b.key)),
      };
    }
    case "enum":
      return {
        name,
        text: `enum ${name}`,
        members: (def.members ?? []).map((m: Json) =>
          member(m.init ? `${m.name} = ${typeText(m.init)}` : m.name)
        ).sort((a: ApiMember, b: ApiMember) => compareText(a.key, b.key)),
      };
    default:
      throw new Error(
        `the API exports ${name} as a ${declaration.kind}, a kind the API report does not ` +
          `describe: add it to runtime/dev/api_shape.ts`,
      );
  }
}

/** The members of an interface, a class or a type literal, sorted by key. */
function membersOf(def: Json, where: string): ApiMember[] {
  const known = new Set([
    "properties",
    "methods",
    "callSignatures",
    "indexSignatures",
    "constructors",
    "extends",
    "implements",
    "typeParams",
    "superTypeParams",
    "isAbstract",
    "decorators",
  ]);
  for (const [key, value] of Object.entries(def)) {
    if (!known.has(key) && Array.isArray(value) && value.length > 0) {
      throw new Error(`${where} has ${key}, which the API report does not describe`);
    }
  }
  const lines: string[] = [];
  for (const p of def.properties ?? []) {
    if (p.accessibility === "private" || String(p.name).startsWith("#")) continue;
    const name = p.computed ? `[${p.name}]` : p.name;
    const prefix = `${p.readonly ? "readonly " : ""}${p.isStatic ? "static " : ""}`;
    lines.push(`${prefix}${name}${p.optional ? "?" : ""}: ${typeText(p.tsType)}`);
  }
  for (const m of def.methods ?? []) {
    if (m.accessibility === "private" || String(m.name).startsWith("#")) continue;
    const name = m.computed ? `[${m.name}]` : m.name;
    const prefix = `${m.isStatic ? "static " : ""}${
      m.kind === "getter" ? "get " : m.kind === "setter" ? "set " : ""
    }`;
    const fn = m.functionDef ?? m;
    lines.push(`${prefix}${name}${m.optional ? "?" : ""}${signatureText(fn, fn.returnType)}`);
  }
  for (const c of def.callSignatures ?? []) lines.push(signatureText(c, c.tsType));
  for (const s of def.indexSignatures ?? []) {
    lines.push(`${s.readonly ? "readonly " : ""}[${paramsText(s.params)}]: ${typeText(s.tsType)}`);
  }
  return lines.map(member).sort((a, b) => compareText(a.key, b.key));
}

/**
 * A member from its line: the key is the name before `?`, `(`, `:` or `<`
 * (the bracketed part of an index signature, `()` for a call signature).
 * The report's reader uses it too, so a member read back is the member written.
 */
export function member(text: string): ApiMember {
  const body = text.replace(/^(readonly |static )+/, "");
  const match = /^((?:get |set |new)?)(\[[^\]]*\]|"(?:[^"\\]|\\.)*"|[^\s?(:<]*)(\??)/.exec(body);
  const name = match ? `${match[1]}${match[2]}` : body;
  return { key: name === "" ? "()" : name, text, optional: match?.[3] === "?" };
}

/** `<T extends U = V>(a: A, b?: B): R` for a function, method or call signature. */
function signatureText(fn: Json, returnType: Json): string {
  const ret = returnType ? `: ${typeText(returnType)}` : "";
  return `${typeParamsText(fn.typeParams)}(${paramsText(fn.params)})${ret}`;
}

/** The parameters of a signature, as written. */
function paramsText(params: Json[] | undefined): string {
  return (params ?? []).map((p) => {
    const type = p.tsType ? `: ${typeText(p.tsType)}` : "";
    switch (p.kind) {
      case "identifier":
        return `${p.name}${p.optional ? "?" : ""}${type}`;
      case "rest":
        return `...${paramsText([{ ...p.arg, tsType: undefined }])}${type}`;
      case "assign":
        return `${paramsText([{ ...p.left, tsType: undefined }])}?${type}`;
      case "object":
        return `{…}${p.optional ? "?" : ""}${type}`;
      case "array":
        return `[…]${p.optional ? "?" : ""}${type}`;
      default:
        return `${p.kind}${type}`;
    }
  }).join(", ");
}

/** `<T extends U = V>`, or nothing. */
function typeParamsText(params: Json[] | undefined): string {
  if (!params || params.length === 0) return "";
  return `<${
    params.map((p) =>
      `${p.name}${p.constraint ? ` extends ${typeText(p.constraint)}` : ""}${
        p.default ? ` = ${typeText(p.default)}` : ""
      }`
    ).join(", ")
  }>`;
}

/** A type as TypeScript text. */
function typeText(t: Json): string {
  if (!t) return "unknown";
  const v = t.value;
  switch (t.kind) {
    case "keyword":
      return String(v);
    case "literal":
      return v?.kind === "string" ? JSON.stringify(v.string) : String(t.repr);
    case "typeRef":
      return `${v.typeName}${
        v.typeParams?.length ? `<${v.typeParams.map(typeText).join(", ")}>` : ""
      }`;
    case "union":
      return v.map(grouped).join(" | ");
    case "intersection":
      return v.map(grouped).join(" & ");
    case "array":
      return `${grouped(v)}[]`;
    case "tuple":
      return `[${v.map(typeText).join(", ")}]`;
    case "typeLiteral": {
      const members = membersOf(v, "a type literal").map((m) => m.text);
      return members.length === 0 ? "{}" : `{ ${members.join("; ")} }`;
    }
    case "fnOrConstructor":
      return `${v.constructor ? "new " : ""}${typeParamsText(v.typeParams)}(${
        paramsText(v.params)
      }) => ${typeText(v.tsType)}`;
    case "parenthesized":
      return `(${typeText(v)})`;
    case "rest":
      return `...${typeText(v)}`;
    case "optional":
      return `${typeText(v)}?`;
    case "this":
      return "this";
    case "typeOperator":
      return `${v.operator} ${typeText(v.tsType)}`;
    case "indexedAccess":
      return `${grouped(v.objType)}[${typeText(v.indexType)}]`;
    case "conditional":
      return `${typeText(v.checkType)} extends ${typeText(v.extendsType)} ? ${
        typeText(v.trueType)
      } : ${typeText(v.falseType)}`;
    default:
      if (typeof t.repr === "string" && t.repr !== "") return t.repr;
      throw new Error(
        `a type of kind ${t.kind} has no text in deno doc --json: add it to runtime/dev/api_shape.ts`,
      );
  }
}

/** A type inside a union, an intersection or an array, in parentheses when it needs them. */
function grouped(t: Json): string {
  const text = typeText(t);
  const loose = t?.kind === "union" || t?.kind === "intersection" ||
    t?.kind === "fnOrConstructor" || t?.kind === "conditional";
  return loose ? `(${text})` : text;
}

/** A stable order that does not depend on the locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
