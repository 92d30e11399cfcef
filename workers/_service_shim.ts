/**
 * The JavaScript that runs inside each QuickJS context before package code:
 * a bootstrap script that takes the private binding off the global object and
 * builds the surface over it, and the module the loader serves as
 * `@sync/extension-api/service`.
 *
 * @module
 */
import { API_VERSION, CONSOLE_LEVELS, HOST_FUNCTIONS } from "../runtime/isolate/protocol.ts";

/** The global the host sets for one moment; the bootstrap deletes it. */
export const BINDING_GLOBAL = "__syncBinding";
/** The global the bootstrap leaves for the shim module; the shim deletes it. */
export const SURFACE_GLOBAL = "__syncSurface";

/**
 * The bootstrap script. Evaluated as a script; its completion value is an
 * object of internals (`encode`, `decode`) the worker keeps by handle and
 * that package code never sees.
 */
export const BOOTSTRAP_SOURCE = `(() => {
  "use strict";
  const binding = globalThis.${BINDING_GLOBAL};
  delete globalThis.${BINDING_GLOBAL};
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const isArray = Array.isArray;
  const keys = Object.keys;
  const getPrototypeOf = Object.getPrototypeOf;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const ObjectProto = Object.prototype;
  const TypeErr = TypeError;
  const isFiniteNumber = Number.isFinite;

  // Values cross as plain JSON only; anything else is refused with its path,
  // rather than silently dropped the way JSON.stringify drops a function.
  // The copy is built with a list of open containers, not by recursion, so
  // that sending a value costs the handler none of its stack cap.
  function encode(value, label) {
    // The containers being copied, innermost last; their sources are the
    // path from the top, which is what a cycle would lead back to.
    const open = [];
    const sources = [];
    // Checks one value and answers what the copy holds for it: the value
    // itself, or a fresh container that is filled in when its turn comes.
    function enter(v, path, depth) {
      if (depth > 256) throw new TypeErr(label + ": " + path + " is nested more than 256 levels deep");
      if (v === null) return null;
      switch (typeof v) {
        case "string":
        case "boolean":
          return v;
        case "number":
          if (!isFiniteNumber(v)) throw new TypeErr(label + ": " + path + " is " + v + ", which JSON cannot carry");
          return v;
        case "undefined":
          throw new TypeErr(label + ": " + path + " is undefined, which JSON cannot carry");
        case "function":
          throw new TypeErr(label + ": " + path + " is a function, which cannot leave the isolate");
        case "bigint":
          throw new TypeErr(label + ": " + path + " is a BigInt, which JSON cannot carry (send it as a string)");
        case "symbol":
          throw new TypeErr(label + ": " + path + " is a symbol, which JSON cannot carry");
      }
      if (typeof v.toJSON === "function") {
        v = v.toJSON();
        if (v === null || typeof v !== "object") return enter(v, path, depth + 1);
      }
      if (sources.indexOf(v) !== -1) throw new TypeErr(label + ": " + path + " refers back to itself (a cycle), which JSON cannot carry");
      let copy;
      let names = null;
      if (isArray(v)) {
        copy = [];
      } else {
        const proto = getPrototypeOf(v);
        if (proto !== ObjectProto && proto !== null) {
          const ctor = proto && proto.constructor && proto.constructor.name;
          throw new TypeErr(label + ": " + path + " is a " + (ctor || "non-plain object") + ", not plain JSON data");
        }
        copy = {};
        names = keys(v);
      }
      sources.push(v);
      open.push({ source: v, copy, names, next: 0, path, depth });
      return copy;
    }
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
        copy.push(enter(source[i], at.path + "[" + i + "]", at.depth + 1));
      } else {
        const k = names[i];
        // Defined, not assigned: assigning an own "__proto__" key would set
        // the copy's prototype instead, and the key would vanish from the JSON.
        defineProperty(copy, k, {
          value: enter(source[k], at.path + "." + k, at.depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return stringify(top);
  }

  function decode(text) {
    return parse(text);
  }

  async function call(fn, args) {
    const text = await binding(fn, args === undefined ? "null" : encode(args, fn + "() argument"));
    return parse(text);
  }

  function format(args) {
    let line = "";
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      let s;
      if (typeof a === "string") s = a;
      else {
        try { s = stringify(a); } catch (_) { s = undefined; }
        if (s === undefined) s = String(a);
      }
      line += (i ? " " : "") + s;
    }
    return line;
  }

  const surface = {};
  for (const name of ${JSON.stringify(HOST_FUNCTIONS)}) {
    const [area, member] = name.split(".");
    surface[area] = surface[area] || {};
    surface[area][member] = freeze({ [member](args) { return call(name, args); } }[member]);
  }
  const consoleSurface = {};
  for (const level of ${JSON.stringify(CONSOLE_LEVELS)}) {
    consoleSurface[level] = freeze({ [level](...args) { binding("console." + level, format(args)); } }[level]);
  }
  surface.console = consoleSurface;
  for (const area of keys(surface)) freeze(surface[area]);
  globalThis.console = surface.console;
  globalThis.${SURFACE_GLOBAL} = freeze(surface);
  return freeze({ encode, decode });
})()`;

/** The module served as `@sync/extension-api/service`. */
export const SERVICE_MODULE_SOURCE = `const surface = globalThis.${SURFACE_GLOBAL};
delete globalThis.${SURFACE_GLOBAL};
export const memory = surface.memory;
export const work = surface.work;
export const net = surface.net;
export const console = surface.console;
export const API_VERSION = ${JSON.stringify(API_VERSION)};
`;
