/**
 * The JavaScript that runs inside QuickJS around package code. Nothing of it
 * is parsed in every fresh context (the worker gives a context its `console`
 * as native functions); there are two pieces:
 *
 * - the encoder, evaluated once per QuickJS runtime in a context of its own
 *   that package code never reaches: it turns values into JSON text, refusing
 *   what JSON cannot carry, and formats console lines;
 * - the module the loader serves as `@sync/extension-api/service`, evaluated
 *   only in a context whose package imports it.
 *
 * @module
 */
import { API_VERSION, HOST_FUNCTIONS, SPREAD_ARGUMENTS } from "../runtime/isolate/protocol.ts";

/** The global the worker sets for one moment; the service module deletes it. */
export const BINDING_GLOBAL = "__syncBinding";

/**
 * What the encoder answers, in place of JSON text (which never starts with it), for a value JSON cannot
 * carry: this character, then why (a message naming the value's path).
 */
export const REFUSED_MARK = "!";

/**
 * The encoder, evaluated as a script once per runtime in its own context. Its
 * completion value holds `encode(value, label, objectPrototype)`,
 * `format(...args)`, `ownValue(object, name)` (an own data property's value,
 * never an inherited one) and `describe(object, objectPrototype)` (what
 * `register()` returned, for a probe). Values of a call's context reach it as
 * arguments and it hands back only strings, or a value it was handed, so
 * package code never holds one of its objects. `objectPrototype` is the
 * calling context's `Object.prototype`, which is what a plain object of that
 * context has.
 */
export const ENCODER_SOURCE = `(() => {
  "use strict";
  const stringify = JSON.stringify;
  const isArray = Array.isArray;
  const keys = Object.keys;
  const getPrototypeOf = Object.getPrototypeOf;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const hasOwn = Object.hasOwn;
  const isFiniteNumber = Number.isFinite;
  const toText = String;
  // Thrown, and caught at the top, for a value JSON cannot carry; anything
  // else thrown (by a getter or toJSON of the value) goes on as it is.
  const refused = {};
  // What \`enter\` answers for undefined: left out of an object, null in an
  // array, as JSON.stringify does.
  const omitted = {};
  let reason = "";
  function refuse(text) {
    reason = text;
    throw refused;
  }

  // Values cross as plain JSON only; anything else is refused with its path,
  // rather than silently dropped the way JSON.stringify drops a function.
  // Undefined alone is dropped the way JSON.stringify drops it: it is how an
  // optional property is commonly left unset, and means nothing else.
  // The copy is built with a list of open containers, not by recursion, so
  // that sending a value costs the handler none of its stack cap.
  function encode(value, label, ObjectProto) {
    // The containers being copied, innermost last; their sources are the
    // path from the top, which is what a cycle would lead back to.
    const open = [];
    const sources = [];
    // Checks one value and answers what the copy holds for it: the value
    // itself, or a fresh container that is filled in when its turn comes.
    function enter(v, path, depth) {
      if (depth > 256) refuse(label + ": " + path + " is nested more than 256 levels deep");
      if (v === null) return null;
      switch (typeof v) {
        case "string":
        case "boolean":
          return v;
        case "number":
          if (!isFiniteNumber(v)) refuse(label + ": " + path + " is " + v + ", which JSON cannot carry");
          return v;
        case "undefined":
          return omitted;
        case "function":
          refuse(label + ": " + path + " is a function, which cannot leave the isolate");
        case "bigint":
          refuse(label + ": " + path + " is a BigInt, which JSON cannot carry (send it as a string)");
        case "symbol":
          refuse(label + ": " + path + " is a symbol, which JSON cannot carry");
      }
      if (typeof v.toJSON === "function") {
        v = v.toJSON();
        if (v === null || typeof v !== "object") return enter(v, path, depth + 1);
      }
      if (sources.indexOf(v) !== -1) refuse(label + ": " + path + " refers back to itself (a cycle), which JSON cannot carry");
      let copy;
      let names = null;
      if (isArray(v)) {
        copy = [];
      } else {
        const proto = getPrototypeOf(v);
        if (proto !== ObjectProto && proto !== null) {
          const ctor = proto && proto.constructor && proto.constructor.name;
          refuse(label + ": " + path + " is a " + (ctor || "non-plain object") + ", not plain JSON data");
        }
        copy = {};
        names = keys(v);
      }
      sources.push(v);
      open.push({ source: v, copy, names, next: 0, path, depth });
      return copy;
    }
    try {
      const top = enter(value, "value", 0);
      while (open.length > 0) {
        const at = open[open.length - 1];
        const { source, copy, names } = at;
        if (names === null ? at.next >= source.length : at.next >= names.length) {
          open.pop();
          sources.pop();
          continue;
        }
        const i = at.next++;
        if (names === null) {
          const item = enter(source[i], at.path + "[" + i + "]", at.depth + 1);
          copy.push(item === omitted ? null : item);
        } else {
          const k = names[i];
          const item = enter(source[k], at.path + "." + k, at.depth + 1);
          if (item === omitted) continue;
          // Defined, not assigned: assigning an own "__proto__" key would set
          // the copy's prototype instead, and the key would vanish from the JSON.
          defineProperty(copy, k, {
            value: item,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      return top === omitted ? "null" : stringify(top);
    } catch (error) {
      if (error === refused) return ${JSON.stringify(REFUSED_MARK)} + reason;
      throw error;
    }
  }

  function format(...args) {
    let line = "";
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      let s;
      if (typeof a === "string") s = a;
      else {
        try { s = stringify(a); } catch (_) { s = undefined; }
        if (s === undefined) s = toText(a);
      }
      line += (i ? " " : "") + s;
    }
    return line;
  }

  // The value of o's own data property name, or undefined: never a value o
  // inherits, and never a getter's. The descriptor is this context's object,
  // so nothing package code put on its own Object.prototype is read.
  function ownValue(o, name) {
    const found = getOwnPropertyDescriptor(o, name);
    return found !== undefined && hasOwn(found, "value") ? found.value : undefined;
  }

  // What register() returned, as JSON text: its kind, and for an object each
  // own key with typeof its value, and its prototype: "plain" for the calling
  // context's Object.prototype, "null", or what else it is.
  function describe(o, ObjectProto) {
    if (o === null) return stringify({ kind: "null" });
    if (isArray(o)) return stringify({ kind: "array" });
    const handlers = keys(o).map((name) => ({ name, type: typeof ownValue(o, name) }));
    const proto = getPrototypeOf(o);
    let prototype = "plain";
    if (proto === null) prototype = "null";
    else if (proto !== ObjectProto) {
      const ctor = ownValue(proto, "constructor");
      const named = typeof ctor === "function" ? ownValue(ctor, "name") : undefined;
      prototype = typeof named === "string" && named !== "" ? named : "object";
    }
    return stringify({ kind: "object", handlers, prototype });
  }

  return { encode, format, ownValue, describe };
})()`;

function surfaceArea(area: string): string {
  const members = HOST_FUNCTIONS.filter((name) => name.startsWith(`${area}.`))
    .map((name) =>
      `${name.slice(area.length + 1)}: ${SPREAD_ARGUMENTS.includes(name) ? "s" : "m"}(${
        JSON.stringify(name)
      })`
    );
  return `export const ${area} = f({ ${members.join(", ")} });`;
}

/**
 * The module served as `@sync/extension-api/service`, evaluated when package
 * code imports it: the worker sets the binding global as the module loads,
 * and the module's first statements take it off again.
 */
export const SERVICE_MODULE_SOURCE = `const b = globalThis.${BINDING_GLOBAL};
delete globalThis.${BINDING_GLOBAL};
const f = Object.freeze;
const m = (n) => { const k = n.slice(n.indexOf(".") + 1); return f({ [k](args) { return b(n, args); } }[k]); };
const s = (n) => { const k = n.slice(n.indexOf(".") + 1); return f({ [k](...args) { return b(n, args); } }[k]); };
${[...new Set(HOST_FUNCTIONS.map((name) => name.split(".")[0]))].map(surfaceArea).join("\n")}
export const console = globalThis.console;
export const API_VERSION = ${JSON.stringify(API_VERSION)};
`;
