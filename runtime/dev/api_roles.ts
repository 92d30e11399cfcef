/**
 * Who makes the values of each interface the extension API exports, found
 * from where the API uses it (`runtime/dev/api_shape.ts` records it, and
 * `runtime/dev/api_bump.ts` decides by it whether a new required member
 * breaks packages).
 *
 * @module
 */

/**
 * Who makes the values of an interface: `host` when a package only receives
 * them (a record it reads, an API object it calls), `author` when the package
 * builds them (an argument it passes, a module it exports), `both` when it
 * does either. It decides whether a new required member breaks packages.
 */
export type ApiRole = "host" | "author" | "both";

// deno doc's JSON is untyped: these are the few shapes read here.
// deno-lint-ignore no-explicit-any
type Json = any;

/** Who makes a value at a position, while walking types. */
type Side = "host" | "author";

/**
 * Who makes each exported interface, given every exported declaration by name
 * (`deno doc --json` declarations): exported values are the host's, and so
 * what they hold; the parameters of a function flip the side; a type no other
 * export names is the author's to make (`Handlers`, `ScreenModule`).
 */
export function apiRoles(exported: Map<string, unknown[]>): Map<string, ApiRole> {
  const declarations = exported as Map<string, Json[]>;
  const seen = new Map<string, Set<Side>>();
  const referenced = new Set<string>();
  for (const [name, decls] of declarations) {
    for (const declaration of decls) {
      collectNames(declaration.def, (ref) => {
        if (ref !== name) referenced.add(ref);
      });
    }
  }

  const visitName = (name: string, side: Side) => {
    const sides = seen.get(name) ?? new Set<Side>();
    if (sides.has(side)) return;
    sides.add(side);
    seen.set(name, sides);
    for (const declaration of declarations.get(name) ?? []) visitDef(declaration, side);
  };
  const flip = (side: Side): Side => side === "host" ? "author" : "host";
  const visitSignature = (fn: Json, ret: Json, side: Side) => {
    for (const p of fn?.params ?? []) visitType(p.tsType, flip(side));
    visitType(ret, side);
  };
  const visitMembers = (def: Json, side: Side) => {
    for (const p of def?.properties ?? []) visitType(p.tsType, side);
    for (const m of def?.methods ?? []) {
      const fn = m.functionDef ?? m;
      visitSignature(fn, fn.returnType, side);
    }
    for (const c of def?.callSignatures ?? []) visitSignature(c, c.tsType, side);
    for (const s of def?.indexSignatures ?? []) visitType(s.tsType, side);
    for (const e of def?.extends ?? []) if (typeof e === "object") visitType(e, side);
  };
  const visitType = (t: Json, side: Side): void => {
    if (!t || typeof t !== "object") return;
    if (t.kind === "typeRef") {
      if (declarations.has(t.value.typeName)) visitName(t.value.typeName, side);
      for (const p of t.value.typeParams ?? []) visitType(p, side);
    } else if (t.kind === "typeLiteral") {
      visitMembers(t.value, side);
    } else if (t.kind === "fnOrConstructor") {
      visitSignature(t.value, t.value.tsType, side);
    } else {
      visitInside(t.value, side);
    }
  };
  // The types inside a union, an array, an indexed access…: objects with a
  // kind are types; anything else is a holder of them.
  const visitInside = (value: Json, side: Side): void => {
    if (Array.isArray(value)) { for (const item of value) visitInside(item, side); }
    else if (value && typeof value === "object") {
      if (typeof value.kind === "string") visitType(value, side);
      else for (const item of Object.values(value)) visitInside(item, side);
    }
  };
  const visitDef = (declaration: Json, side: Side) => {
    const def = declaration.def ?? {};
    if (declaration.kind === "function") visitSignature(def, def.returnType, side);
    else if (declaration.kind === "interface" || declaration.kind === "class") {
      visitMembers(def, side);
    } else if (def.tsType) visitType(def.tsType, side);
  };

  for (const [name, decls] of declarations) {
    for (const declaration of decls) {
      if (declaration.kind === "variable" || declaration.kind === "function") {
        visitDef(declaration, "host");
      } else if (declaration.kind === "class" || declaration.kind === "enum") {
        visitName(name, "host");
      }
    }
  }
  const types = [...declarations].filter(([, decls]) =>
    decls.every((d) => d.kind === "interface" || d.kind === "typeAlias")
  ).map(([name]) => name);
  for (const name of types) if (!referenced.has(name)) visitName(name, "author");
  // A cycle of types no value reaches: take the side that makes adding to them breaking.
  for (const name of types) if (!seen.has(name)) visitName(name, "author");

  const roles = new Map<string, ApiRole>();
  for (const [name, sides] of seen) {
    roles.set(name, sides.size === 2 ? "both" : sides.has("author") ? "author" : "host");
  }
  return roles;
}

/** Every type name a definition refers to. */
function collectNames(def: Json, found: (name: string) => void): void {
  if (!def || typeof def !== "object") return;
  if (def.kind === "typeRef" && typeof def.value?.typeName === "string") found(def.value.typeName);
  walkChildren(def, (child) => collectNames(child, found));
}

/** Calls `each` with every object or array directly inside `value`. */
function walkChildren(value: Json, each: (child: Json) => void): void {
  if (!value || typeof value !== "object") return;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (child && typeof child === "object") {
      if (Array.isArray(child)) child.forEach(each);
      else each(child);
    }
  }
}
