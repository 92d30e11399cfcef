/**
 * The stand-in host: runs a built service module in the real isolate (the same
 * pool, QuickJS and shim that run handlers) over an empty in-memory project
 * memory, calls its `register()`, and compares the keys it returned with the
 * handlers the manifest declares. No handler is called. What `register()`
 * calls is answered by the host's own table of host functions, with a context
 * that withholds work and the network.
 *
 * @module
 */
import { NotFoundError, PermissionDeniedError } from "../../errors.ts";
import { hostDispatch, type HostFunctionContext } from "../../host/mod.ts";
import type { IsolatePool } from "../../isolate/mod.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../../limits.ts";
import type { Manifest } from "../../packages/mod.ts";
import { MemoryAccess, MemoryTransaction } from "../../memory/mod.ts";
import type { CheckProblem } from "./problem.ts";
import type { JsonPlaces } from "./_json_place.ts";
import type { ScanPlace } from "./_scan.ts";

/** What the stand-in answers `work` with, once the permission is there. */
const NO_WORK = "the stand-in host of deno task check orders no work";

/**
 * What the stand-in refuses instead of performing. `register()` runs before
 * every handler call, and check must order no work and make no requests on the
 * author's behalf; memory is served, over the empty project.
 */
const WITHHELD: HostFunctionContext["withheld"] = {
  "work.order": () => new NotFoundError(NO_WORK),
  "work.state": () => new NotFoundError(NO_WORK),
  "net.fetch": () =>
    new PermissionDeniedError("the stand-in host of deno task check makes no requests"),
};

/** What the stand-in host needs besides the module. */
export interface StandInOptions {
  /** The pool whose isolate loads the module and calls `register()`; the caller closes it. */
  pool: IsolatePool;
  /**
   * The limits `register()` and the host functions it calls run under;
   * defaults to {@linkcode DEFAULT_LIMITS}.
   */
  limits?: HandlerLimits;
  /** Places of the manifest's fields, to place problems about declarations. */
  manifestPlaces: JsonPlaces;
  /** Where the module's default export is written, when the scan found it. */
  defaultExport?: ScanPlace;
  /** Where the module exports a function named `register`, when it does. */
  namedRegister?: ScanPlace;
}

/**
 * Runs `register()` of the module at `manifest.service` and reports what does
 * not match the manifest.
 *
 * @param manifest The validated manifest.
 * @param source The built module's text.
 */
export async function standInProblems(
  manifest: Manifest,
  source: string,
  options: StandInOptions,
): Promise<CheckProblem[]> {
  const service = manifest.service!;
  const id = manifest.id;
  const problems: CheckProblem[] = [];
  const atExport = options.defaultExport
    ? { line: options.defaultExport.line, column: options.defaultExport.column }
    : {};
  const kv = await Deno.openKv(":memory:");
  const transaction = new MemoryTransaction(kv, { by: id });
  const context: HostFunctionContext = {
    package: { manifest },
    // No folder: the project is its memory, an in-memory KV that is thrown away.
    project: ":memory:",
    handler: "register",
    transaction,
    // No other package is installed, so only the package's own kinds can be read.
    access: new MemoryAccess(id, []),
    orders: [],
    kv,
    now: Date.now,
    limits: options.limits ?? DEFAULT_LIMITS,
    withheld: WITHHELD,
  };
  let report;
  try {
    report = await options.pool.probe(
      { source, sourceName: service, packageId: id, limits: options.limits },
      {
        ...hostDispatch(context),
        log: () => {},
      },
    );
  } finally {
    transaction.discard();
    kv.close();
  }

  const example = `export default function register() { return { "${id}.name": ` +
    `async (payload, occasion) => { … } }; }`;
  if (report.failed?.stage === "load") {
    const { line, column } = report.failed;
    problems.push({
      rule: "module-load",
      file: service,
      // Where the error's stack says it was thrown; the top of the module when it does not.
      ...(line !== undefined ? { line, column: column ?? 1 } : { line: 1, column: 1 }),
      message: report.failed.error.message,
      hint: "the module's top level runs every time a handler is called and must not fail; " +
        "keep work inside handlers",
    });
    return problems;
  }
  if (report.register !== "function") {
    const named = report.register === "missing" ? options.namedRegister : undefined;
    problems.push({
      rule: "register",
      file: service,
      // A module with no default export is placed at its named register, or at its top.
      ...(report.register === "missing"
        ? { line: named?.line ?? 1, column: named?.column ?? 1 }
        : atExport),
      message: report.register !== "missing"
        ? `its default export is ${article(report.register)}, not a function register()`
        : named
        ? "has no default export register(); it exports register by name, and the host calls " +
          "the default export"
        : "has no default export register()",
      hint: `export the function the host calls to find the handlers: ${example}`,
    });
    return problems;
  }
  if (report.failed?.stage === "register") {
    problems.push({
      rule: "register",
      file: service,
      ...atExport,
      message: report.failed.error.message,
      hint: "register() runs before every handler call and must only return the handlers; " +
        "move anything that can fail into a handler",
    });
    return problems;
  }
  if (report.returned !== "object" || !report.handlers) {
    problems.push({
      rule: "register",
      file: service,
      ...atExport,
      message: `register() returned ${
        report.returned === "null" || report.returned === "undefined" || !report.returned
          ? report.returned ?? "undefined"
          : article(report.returned)
      }, not an object of handlers`,
      hint: `return an object whose keys are the handler names the manifest declares: ${example}`,
    });
    return problems;
  }

  if (
    report.prototype !== undefined && report.prototype !== "plain" && report.prototype !== "null"
  ) {
    // The host takes a handler only as the object's own property, so what a
    // prototype holds is never called, nor anything the object inherits.
    problems.push({
      rule: "register",
      file: service,
      ...atExport,
      message: `register() returned ${
        report.prototype === "object"
          ? "an object whose prototype is not Object.prototype"
          : `${article(report.prototype)} instance`
      }, not a plain object; the host calls only the handlers it holds as its own keys`,
      hint:
        `return an object literal (or one made with Object.create(null)) holding each handler ` +
        `as its own key: ${example}`,
    });
  }
  const returned = new Map(report.handlers.map((h) => [h.name, h.type]));
  const scheduled = new Set(manifest.schedule.map((row) => row.handler));
  const lifecycle = new Set(Object.values(manifest.lifecycle ?? {}));
  for (const [name, declared] of Object.entries(manifest.handlers)) {
    const type = returned.get(name);
    if (type === "function") continue;
    const uses = [
      declared.agent ? "an agent tool" : undefined,
      scheduled.has(name) ? "on the schedule" : undefined,
      lifecycle.has(name) ? "a lifecycle handler" : undefined,
    ].filter(Boolean);
    const role = uses.length ? ` (it is ${uses.join(" and ")})` : "";
    const place = options.manifestPlaces.of(["handlers", name]);
    problems.push(
      type === undefined
        ? {
          rule: "handler-not-returned",
          file: "manifest.json",
          ...place,
          message: `handler "${name}" is declared${role} but register() does not return it`,
          hint: `return "${name}" from register() in the service module, or remove its ` +
            `declaration from "handlers"`,
        }
        : {
          rule: "handler-not-function",
          file: service,
          ...atExport,
          message: `register() returns "${name}" as ${article(type)}, not a function`,
          hint: `make "${name}" a function: "${name}": async (payload, occasion) => { … }`,
        },
    );
  }
  for (const { name } of report.handlers) {
    if (Object.hasOwn(manifest.handlers, name)) continue;
    problems.push({
      rule: "handler-not-declared",
      file: service,
      ...atExport,
      message: `register() returns "${name}", which manifest.json does not declare`,
      hint: `declare every handler the module returns: "handlers": { "${name}": ` +
        `{ "description": "What it does" } }, or stop returning it`,
    });
  }
  return problems;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
