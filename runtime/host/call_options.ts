/**
 * What one handler call is made with: why and for whom ({@linkcode CallOptions}),
 * what it uses of the process it runs in ({@linkcode CallResources}), and
 * which handler it attempts ({@linkcode AttemptOf}). Shared by `call.ts` and
 * the steps of an attempt behind it.
 *
 * @module
 */
import type { IsolatePool } from "../isolate/mod.ts";
import type { HandlerLimits } from "../limits.ts";
import type { Generation, RecordCursors } from "../memory/mod.ts";
import type { LoadedPackage, ServingReads } from "../packages/mod.ts";
import type { Occasion } from "../extension_api/service.ts";
import type { Receipt, Source } from "../types.ts";
import type { EventSink } from "../sync_event.ts";
import type { DefinedAgents } from "../work/mod.ts";
import type { CallJournal } from "./call_journal.ts";
import type { ResolveHost } from "./functions/resolve_host.ts";
import type { HandlerRateLimit } from "./handler_rate_limit.ts";
import type { WorkStateReader } from "./host_function.ts";
import type { KeptGenerations } from "./kept_generations.ts";
import type { LearntReads } from "./learnt_reads.ts";
import type { ProcessLock } from "./process_lock.ts";
import type { AccountGrant } from "./account_grant.ts";
import type { ParserPool } from "../parsers/mod.ts";
import type { Foreground } from "./foreground.ts";

/** Options for a handler call (`callHandler`, `call.ts`). */
export interface CallOptions {
  /** Why the handler is called; the handler is told. */
  occasion: Occasion;
  /** Who asked; carried into any work the call orders. */
  source: Source;
  /** What the handler is given; null when absent. */
  payload?: unknown;
  /**
   * The generation the caller saw before it decided to call. The call
   * commits only if the package's generation is still this one, so a person
   * who switched the clock off between the decision and the call wins. When
   * absent, the generation is read as the call starts.
   */
  generation?: Generation;
  /**
   * The ids to take as the project's installed ones instead of reading
   * `.sync/extensions.json`: the clock passes the ids remembered when the
   * project was last opened, since it never reads a repository.
   */
  declaredIds?: readonly string[];
  /**
   * The artefact to call instead of the one serving the project now: an
   * install runs the `installed` handler of what it is about to install,
   * before anything of it is committed.
   */
  package?: LoadedPackage;
  /**
   * Leave no receipt when the handler is already running, so the call never
   * started: the clock takes such an attempt back and says so itself.
   */
  noReceiptWhenBusy?: boolean;
  /**
   * Aborted when the caller calls the call off (an MCP client's
   * `notifications/cancelled`): the handler is stopped where it is, nothing
   * it staged is committed, and its receipt says `cancelled`. A call whose
   * transaction already committed is not undone.
   */
  signal?: AbortSignal;
  /**
   * Told the receipt once it is written, whatever the outcome: a caller that
   * is thrown the call's error still learns which receipt the call left.
   */
  onReceipt?: (receipt: Receipt) => void;
  /**
   * The device's account a task step reads through (`account.*` host
   * functions), set by the applets' task runner; absent for every other call,
   * whose `account.*` calls are refused.
   */
  account?: AccountGrant;
}

/** What a call uses of the process it runs in; the Host holds these. */
export interface CallResources {
  /** The installation's KV: claims, receipts, approvals. */
  kv: Deno.Kv;
  /** The host's clock, in ms. */
  now: () => number;
  /** The limits every call runs under. */
  limits: HandlerLimits;
  /** The isolates calls run in. */
  pool: IsolatePool;
  /** The project's memory KV, opened once per process. */
  projectMemory: (project: string) => Promise<Deno.Kv>;
  /** The installation's count of calls per handler. */
  rateLimit: HandlerRateLimit;
  /**
   * The approvals and refs calls resolved their packages from, kept to be
   * proven by the next call's claim instead of read again; read at every
   * call when absent.
   */
  servingReads?: ServingReads;
  /** Seals the cursors of handlers' record listings with the installation's secret. */
  cursors: RecordCursors;
  /** Where console lines of handler code go. */
  log: (line: string) => void;
  /** Performs `net.fetch`; the global `fetch` when absent. */
  fetch?: typeof fetch;
  /** Finds the addresses of a name `net.fetch` reaches; the system resolver when absent. */
  resolve?: ResolveHost;
  /**
   * The lock this process holds while it runs calls; claims name it, so that
   * the claims of a process that was killed are known to be abandoned at once.
   * Without it, a claim is judged by its expiry alone.
   */
  processLock?: () => Promise<ProcessLock>;
  /** Where the call says it started, ended, and left its receipt; nowhere when absent. */
  events?: EventSink;
  /** Where work stands, for `work.state()`; every order is `ordered` when absent. */
  workState?: WorkStateReader;
  /** The agents `work.order()` may name; any name is taken when absent. */
  agents?: DefinedAgents;
  /**
   * The handlers running in this process, by their claim's key: with it and
   * a {@linkcode CallResources.callJournal}, a call claims its handler in the
   * installation only once it needs to (see `CLAIM_AFTER_MS` (`call.ts`)), since
   * a second call here is refused by this set at once; without them, every
   * call claims before it starts.
   */
  runningHere?: Set<string>;
  /**
   * This process's call journal, once its lock is taken: a call that claims
   * only once it needs to is written down there before it runs, so a process
   * killed before the claim still leaves its receipt. Null where none can be
   * kept; every call then claims before it starts.
   */
  callJournal?: () => CallJournal | null;
  /** How long a call runs before it claims its handler when nothing else made it; `CLAIM_AFTER_MS` (`call.ts`) when absent. */
  claimAfterMs?: number;
  /**
   * The reads each handler began its last calls with, made again beside its
   * next call so their answers wait in the worker; nothing is read ahead when absent.
   */
  learntReads?: LearntReads;
  /** The parsers the `account.parse*` host functions use; those are refused when absent. */
  parsers?: ParserPool;
  /**
   * A person's requests in flight: a device's task step's host calls wait
   * while one is young. Nothing waits when absent.
   */
  foreground?: Foreground;
  /**
   * The generation each package's calls last ran under, used by the next
   * call rather than read again; read at every call that uses memory when absent.
   */
  keptGenerations?: KeptGenerations;
}

/** Which handler an attempt calls, and where. */
export interface AttemptOf {
  /** The project's resolved folder. */
  project: string;
  /** The package id. */
  id: string;
  /** The handler's name. */
  handler: string;
}
