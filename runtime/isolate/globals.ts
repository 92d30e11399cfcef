/**
 * The globals handler code finds in the isolate: the language's own built-ins
 * as QuickJS provides them, but for `FinalizationRegistry` (a finalizer would
 * run during a later call), and `console`. Nothing else is there — no timers,
 * no `fetch`, no `TextDecoder`, no `Intl`, no `WebAssembly`, no `process`, no
 * `Deno`, no `window`.
 *
 * `deno task check` scans built service modules against this list and
 * type-checks sources against the same environment; `tests/author/check/check_test.ts`
 * enumerates `globalThis` inside the real isolate and compares it with this
 * list, so the check cannot drift from the runtime.
 *
 * @module
 */

/** Every own property name of the isolate's `globalThis` when handler code runs, sorted. */
export const ISOLATE_GLOBALS: readonly string[] = Object.freeze([
  "AggregateError",
  "Array",
  "ArrayBuffer",
  "BigInt",
  "BigInt64Array",
  "BigUint64Array",
  "Boolean",
  "DataView",
  "Date",
  "Error",
  "EvalError",
  "Float16Array",
  "Float32Array",
  "Float64Array",
  "Function",
  "Infinity",
  "Int16Array",
  "Int32Array",
  "Int8Array",
  "InternalError",
  "Iterator",
  "JSON",
  "Map",
  "Math",
  "NaN",
  "Number",
  "Object",
  "Promise",
  "Proxy",
  "RangeError",
  "ReferenceError",
  "Reflect",
  "RegExp",
  "Set",
  "SharedArrayBuffer",
  "String",
  "Symbol",
  "SyntaxError",
  "TypeError",
  "URIError",
  "Uint16Array",
  "Uint32Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "WeakMap",
  "WeakRef",
  "WeakSet",
  "console",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "escape",
  "eval",
  "globalThis",
  "isFinite",
  "isNaN",
  "parseFloat",
  "parseInt",
  "undefined",
  "unescape",
]);

const PRESENT = new Set(ISOLATE_GLOBALS);

/**
 * Globals the ES library declares that the isolate does not have. A type-check
 * against the ES library alone accepts them, so the check looks for them
 * separately.
 */
export const ES_GLOBALS_NOT_IN_ISOLATE: readonly string[] = Object.freeze([
  "AsyncDisposableStack",
  "Atomics",
  "DisposableStack",
  "FinalizationRegistry",
  "Intl",
  "SuppressedError",
  "Temporal",
]);

/**
 * Whether handler code can use `name` as a global.
 *
 * @param name A global's name, such as `JSON` or `setTimeout`.
 * @example
 * ```ts
 * isIsolateGlobal("JSON"); // true
 * isIsolateGlobal("setTimeout"); // false
 * ```
 */
export function isIsolateGlobal(name: string): boolean {
  return PRESENT.has(name);
}

const TIMERS = "the isolate has no timers: a handler runs and is gone within its time limit; " +
  'to run again later, declare a schedule row for the handler (every: "15m")';
const NODE_OR_DENO = "the isolate is neither Node nor Deno: there is no filesystem, no " +
  "environment and no processes; pass what a handler needs in its payload or keep it in records";
const NO_WINDOW = "the isolate is not a browser: there is no window or document, and a handler " +
  "cannot draw; a package's screen is its ui module";

const HINTS: Record<string, string> = {
  setTimeout: TIMERS,
  setInterval: TIMERS,
  setImmediate: TIMERS,
  clearTimeout: TIMERS,
  clearInterval: TIMERS,
  requestAnimationFrame: TIMERS,
  queueMicrotask: "there is no queueMicrotask; use Promise.resolve().then(…) or await",
  fetch: `there is no fetch global; import { net } from "@sync/extension-api/service" and call ` +
    `net.fetch({ url }), with a net:<host> permission for each host`,
  XMLHttpRequest:
    `there is no XMLHttpRequest; use net.fetch({ url }) from "@sync/extension-api/service" ` +
    `with a net:<host> permission`,
  WebSocket: "there are no sockets; net.fetch({ url }) is the only way out, to declared hosts",
  TextDecoder:
    "the isolate has no TextDecoder of its own: write it by its plain name and deno task build puts a pure one in the bundle",
  TextEncoder:
    "the isolate has no TextEncoder of its own: write it by its plain name and deno task build puts a pure one in the bundle",
  Intl:
    "there is no Intl: format dates with toISOString() and numbers with toFixed(), or let the " +
    "screen format them for a person",
  WebAssembly:
    "there is no WebAssembly: a handler cannot load a .wasm payload; write the logic in " +
    "TypeScript or leave it to the package's screen",
  Atomics: "there is no Atomics: a handler runs on one thread and has no shared memory",
  Temporal: "there is no Temporal: work with Date, toISOString() and Date.parse()",
  DisposableStack: "there is no DisposableStack; release what a handler holds in try/finally",
  AsyncDisposableStack:
    "there is no AsyncDisposableStack; release what a handler holds in try/finally",
  SuppressedError: "there is no SuppressedError; throw an Error that says what went wrong",
  FinalizationRegistry:
    "there is no FinalizationRegistry: a handler's context is thrown away when its call ends, " +
    "so a finalizer could only run during some later call; release what a handler holds in " +
    "try/finally",
  structuredClone:
    "there is no structuredClone; copy plain data with JSON.parse(JSON.stringify(x))",
  crypto:
    "there is no crypto: the isolate offers no randomness source or hashing beyond Math.random()",
  atob: "there is no atob; values cross as JSON text, so keep data as strings",
  btoa: "there is no btoa; values cross as JSON text, so keep data as strings",
  URL: "there is no URL class; build URLs as strings with encodeURIComponent()",
  URLSearchParams: "there is no URLSearchParams; build query strings with encodeURIComponent()",
  performance: "there is no performance clock; use Date.now()",
  Deno: NODE_OR_DENO,
  process: NODE_OR_DENO,
  require: NODE_OR_DENO,
  module: NODE_OR_DENO,
  exports: NODE_OR_DENO,
  Buffer: NODE_OR_DENO,
  global: `${NODE_OR_DENO}; the global object is globalThis`,
  __dirname: NODE_OR_DENO,
  __filename: NODE_OR_DENO,
  window: NO_WINDOW,
  document: NO_WINDOW,
  self: NO_WINDOW,
  navigator: NO_WINDOW,
  location: NO_WINDOW,
  localStorage: `${NO_WINDOW}; keep state in records with memory.write()`,
  sessionStorage: `${NO_WINDOW}; keep state in records with memory.write()`,
  alert: NO_WINDOW,
  postMessage: NO_WINDOW,
  importScripts: NO_WINDOW,
};

/**
 * What to tell an author whose code reaches for a global the isolate does not
 * have: why it is not there and what to use instead.
 *
 * @param name A global the isolate does not have, such as `setTimeout`.
 * @returns One line for the author; a general one for a name with no hint of its own.
 * @example
 * ```ts
 * missingGlobalHint("setTimeout"); // "the isolate has no timers: …"
 * ```
 */
export function missingGlobalHint(name: string): string {
  return (Object.hasOwn(HINTS, name) ? HINTS[name] : undefined) ??
    `the isolate has only the language's built-ins and console; ${name} is not one of them — ` +
      `import what the host offers from "@sync/extension-api/service" or bundle the code that ` +
      `defines ${name} into the module`;
}
