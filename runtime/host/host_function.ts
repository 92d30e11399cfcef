/**
 * What a host function is: one capability handler code reaches through the
 * extension API (`memory.list`, `work.order`, `net.fetch`, …), declared with
 * the permission it needs and the shape of its argument, and what it is given
 * to work with during one call. A new surface is a file under `functions/`
 * and an entry in the table (`function_table.ts`).
 *
 * @module
 */
import { PermissionDeniedError, type SyncError } from "../errors.ts";
import type { HostFunctionName } from "../isolate/mod.ts";
import type { HandlerLimits } from "../limits.ts";
import type { MemoryAccess, MemoryTransaction } from "../memory/mod.ts";
import type { LoadedPackage } from "../packages/mod.ts";
import type { DefinedAgents, WorkOrder } from "../work/mod.ts";
import type { Occasion, WorkState } from "../extension_api/service.ts";
import type { Source } from "../types.ts";
import type { ResolveHost } from "./functions/resolve_host.ts";
import type { AccountGrant } from "./account_grant.ts";
import type { ParserPool } from "../parsers/mod.ts";
import type { Foreground } from "./foreground.ts";

/** Where an order's work stands once a session performs it. */
export interface PerformedWork {
  /** The session's state. */
  state: WorkState["state"];
  /** Why it failed or was interrupted, in the session's words; absent otherwise. */
  reason?: string;
}

/**
 * Reads where an order's work stands: the session performing it, or null
 * while nothing has begun it.
 *
 * @param project The project's resolved folder.
 * @param key The order's key.
 */
export type WorkStateReader = (project: string, key: string) => Promise<PerformedWork | null>;

/** What a host function works with during one handler call. */
export interface HostFunctionContext {
  /** The package whose handler is running; host functions read its manifest only. */
  package: Pick<LoadedPackage, "manifest">;
  /** The project's resolved folder. */
  project: string;
  /** The handler that is running. */
  handler: string;
  /**
   * Why the handler was called, who asked, and when the call began (ms):
   * carried into the source of any work it orders. Absent in the check's
   * stand-in host, which orders none.
   */
  call?: { occasion: Occasion; source: Source; startedAt: number };
  /** The call's staged view of project memory; committed when the handler returns. */
  transaction: MemoryTransaction;
  /** Which kinds the package may read and write in the project. */
  access: MemoryAccess;
  /**
   * Work the call ordered so far, counted against the orders one call may
   * place; each is staged in `transaction` and committed with the records.
   */
  orders: WorkOrder[];
  /** The installation's KV. */
  kv: Deno.Kv;
  /** The host's clock, in ms. */
  now: () => number;
  /** The limits the call runs under. */
  limits: HandlerLimits;
  /** Performs `net.fetch`; the global `fetch` when absent. */
  fetch?: typeof fetch;
  /** Finds the addresses of a name `net.fetch` reaches; the system resolver when absent. */
  resolve?: ResolveHost;
  /** Where work stands, for `work.state()`; every order is `ordered` when absent. */
  workState?: WorkStateReader;
  /** The agents an order may name; any name is taken when absent. */
  agents?: DefinedAgents;
  /**
   * Aborts when the handler call ends: work a function started for it (a
   * request, say) stops then rather than outlive the call.
   */
  signal?: AbortSignal;
  /**
   * Functions this call refuses instead of performing, each with the error it
   * refuses with, checked after the permission and before the argument: the
   * stand-in host of `deno task check` orders no work and makes no requests.
   * Absent for a handler call, which performs them all.
   */
  withheld?: Readonly<Partial<Record<HostFunctionName, () => SyncError>>>;
  /**
   * The device's account when the call is a task step; `account.*` host
   * functions are refused without it.
   */
  account?: AccountGrant;
  /**
   * The parsers `account.parseMail` and `account.parseCalendar` hand files
   * to; those are refused where the host has none.
   */
  parsers?: ParserPool;
  /**
   * For background work (a device's task step): each host call waits while
   * a person's request is young. Absent for any other call.
   */
  background?: Foreground;
}

/**
 * One host function, as the table declares it.
 *
 * @typeParam A The argument once its shape is checked.
 */
export interface HostFunction<A = unknown> {
  /** The name handler code calls it by (one of `HOST_FUNCTIONS`). */
  readonly name: HostFunctionName;
  /**
   * What it reaches, which says when the call's claim must be held
   * (`runtime/host/call.ts` claims a handler only once it needs to):
   * `"reads"` — reads only, and runs at once; `"stages"` — stages writes in the
   * call's transaction, and begins the claim at once, which is held before the
   * transaction commits; `"acts"` — acts outside Sync at once (a request), and
   * runs only once the claim is held.
   */
  readonly reach: "reads" | "stages" | "acts";
  /**
   * The permission the package must declare to call it, checked before the
   * argument is looked at; null when the function needs none of its own.
   */
  readonly permission: string | null;
  /**
   * Checks the argument's shape and answers it typed.
   *
   * @throws {InvalidInputError} naming the shape it takes.
   */
  parse(args: unknown): A;
  /** Performs the function for the call `context` describes; the answer crosses back as JSON. */
  run(arg: A, context: HostFunctionContext): Promise<unknown>;
  /**
   * The longest JSON its answer may cross back as, for a function that bounds
   * its answer by limits of its own; `maxHostValueBytes` when absent.
   */
  readonly maxAnswerBytes?: (limits: HandlerLimits) => number;
}

/**
 * Runs a host function for handler code: its permission first, then whether
 * the call withholds it, then its argument's shape, then the function.
 *
 * @param fn The function, from the table.
 * @param args The argument handler code passed, parsed from JSON.
 * @param context The call it runs in.
 * @returns What the function answered.
 * @throws {PermissionDeniedError} when the package does not declare the permission the function needs.
 * @throws The error `context.withheld` names for the function, when the call withholds it.
 * @throws A domain error from the function itself (a malformed argument, a refused read, …).
 */
export async function runHostFunction(
  fn: HostFunction,
  args: unknown,
  context: HostFunctionContext,
): Promise<unknown> {
  const { manifest } = context.package;
  if (fn.permission !== null && !manifest.permissions.includes(fn.permission)) {
    throw new PermissionDeniedError(
      `${fn.name}() needs the ${fn.permission} permission, which ${manifest.id} does not declare`,
    );
  }
  const withheld = context.withheld?.[fn.name];
  if (withheld) throw withheld();
  return await fn.run(fn.parse(args), context);
}
