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
  const ObjectProto = Object.prototype;
  const TypeErr = TypeError;
  const isFiniteNumber = Number.isFinite;

  // Values cross as plain JSON only; anything else is refused with its path,
  // rather than silently dropped the way JSON.stringify drops a function.
  function encode(value, label) {
    const seen = [];
    function walk(v, path, depth) {
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
        if (v === null || typeof v !== "object") return walk(v, path, depth + 1);
      }
      if (seen.indexOf(v) !== -1) throw new TypeErr(label + ": " + path + " refers back to itself (a cycle), which JSON cannot carry");
      seen.push(v);
      let out;
      if (isArray(v)) {
        out = [];
        for (let i = 0; i < v.length; i++) out.push(walk(v[i], path + "[" + i + "]", depth + 1));
      } else {
        const proto = getPrototypeOf(v);
        if (proto !== ObjectProto && proto !== null) {
          const ctor = proto && proto.constructor && proto.constructor.name;
          throw new TypeErr(label + ": " + path + " is a " + (ctor || "non-plain object") + ", not plain JSON data");
        }
        out = {};
        for (const k of keys(v)) out[k] = walk(v[k], path + "." + k, depth + 1);
      }
      seen.pop();
      return out;
    }
    return stringify(walk(value, "value", 0));
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
