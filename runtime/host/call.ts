/**
 * Calling a handler: the package that serves the project is resolved, the
 * handler is run in the isolate pool as a transaction over project memory,
 * claimed so it is not re-entered once it needs to be (see
 * {@linkcode CLAIM_AFTER_MS}) and counted against its rate limit, and every
 * attempt leaves a receipt.
 *
 * @module
 */
import {
  CancelledError,
  HandlerBusyError,
  InvalidInputError,
  NotFoundError,
  SyncError,
} from "../errors.ts";
import { describeError } from "../internal/describe_error.ts";
import { newId } from "../internal/id.ts";
import {
  type CallHooks,
  type ConsoleLevel,
  type HostFunctionName,
  type IsolatePool,
  type ReadAhead,
  SERVICE_API_SPECIFIER,
} from "../isolate/mod.ts";
import type { HandlerLimits } from "../limits.ts";
import {
  type Generation,
  MemoryAccess,
  MemoryTransaction,
  readGeneration,
  type RecordCursors,
} from "../memory/mod.ts";
import {
  isPackageId,
  type LoadedPackage,
  notAPackageId,
  readableKinds,
  readServiceSource,
  type ServingEntries,
  servingPackage,
  ServingReads,
  type ServingSnapshot,
} from "../packages/mod.ts";
import { readDeclaredIds, resolveProjectDir } from "../projects/mod.ts";
import type { Occasion } from "../extension_api/service.ts";
import type { Receipt, Source } from "../types.ts";
import type { EventSink } from "../sync_event.ts";
import { consoleLine } from "./console_line.ts";
import { ConsoleKeep, writeReceiptConsole } from "./receipt_console.ts";
import { hostDispatch } from "./host_dispatch.ts";
import type { HandlerRateLimit } from "./handler_rate_limit.ts";
import type { HostFunctionContext, WorkStateReader } from "./host_function.ts";
import { boundReceipt, receiptRecords, writeReceipt } from "./receipts.ts";
import type { ProcessLock } from "./process_lock.ts";
import {
  type ClaimCompanion,
  type HandlerHold,
  holdHandler,
  recordUnclaimedCall,
} from "./running_claim.ts";
import { findHostFunction } from "./function_table.ts";
import type { CallJournal } from "./call_journal.ts";
import type { HostFunction } from "./host_function.ts";
import { runningClaimKey } from "./keys.ts";
import type { LearntReads } from "./learnt_reads.ts";
import type { ResolveHost } from "./functions/resolve_host.ts";
import type { DefinedAgents } from "../work/mod.ts";

/** Options for {@linkcode callHandler}. */
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
}

/** What a call answered, with its receipt. */
export interface CallResult {
  /** The handler's answer (`null` when it returned nothing). */
  value: unknown;
  /** The receipt the attempt left. */
  receipt: Receipt;
}

/**
 * What runs handler calls; the Host is one. Modules that call handlers (the
 * clock, lifecycle moments) take this rather than the Host.
 */
export interface HandlerCaller {
  /**
   * Calls a handler as a transaction and leaves a receipt, whatever happens:
   * the package serving the project is resolved, the handler is claimed so it
   * is not re-entered and counted against its rate limit, then run in the
   * isolate pool; its memory writes and work orders are committed only when it
   * returns and the package's generation is still the one the call started
   * under. A call that throws, or that its caller cancels before it commits
   * (`options.signal`), commits nothing.
   *
   * @param projectDir The project folder.
   * @param id The package id.
   * @param handler The handler's name, such as `issues.poll`.
   * @param options Why and for whom the call is made, its payload, and what the caller already read.
   * @returns The handler's answer (`null` when it returned nothing) and the receipt.
   * @throws {NotFoundError} when the project, the package or the handler does not exist.
   * @throws {InvalidInputError} when `id` is not a package id (nothing is attempted).
   * @throws {ApprovalRequiredError} when nothing approved can serve the package in the project.
   * @throws {HandlerBusyError} when the handler is already running in the project.
   * @throws {RateLimitedError} when the handler was called more often than its rate limit allows.
   * @throws {HandlerTimeoutError | HandlerResourceError | HandlerFailedError} when the handler
   *   runs too long, past its memory or stack cap, or throws.
   * @throws {SupersededError} when the generation moved on while it ran.
   * @throws {CancelledError} when `options.signal` aborted before the call committed.
   */
  callHandler(
    projectDir: string,
    id: string,
    handler: string,
    options: CallOptions,
  ): Promise<CallResult>;
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
   * installation only once it needs to (see {@linkcode CLAIM_AFTER_MS}), since
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
  /** How long a call runs before it claims its handler when nothing else made it; {@linkcode CLAIM_AFTER_MS} when absent. */
  claimAfterMs?: number;
  /**
   * The reads each handler began its last calls with, made again beside its
   * next call so their answers wait in the worker; nothing is read ahead when absent.
   */
  learntReads?: LearntReads;
}

/**
 * How long a call that reaches nothing outside its own transaction runs
 * before it claims its handler in the installation anyway. A call claims its
 * handler once it needs to: before a host function that acts outside Sync (a
 * request) runs, and before a transaction that staged writes commits; a call
 * that only read and ended sooner than this is claimed and let go of in one
 * write with its receipt ({@linkcode recordUnclaimedCall}), whose check
 * refuses it if another call held the handler meanwhile, as its claim would
 * have been. Until it claims, the call is written down in this process's
 * {@linkcode CallJournal}, so a process killed meanwhile still leaves its
 * receipt. Past this, a call claims as it always did, so that another
 * process sees it running.
 */
export const CLAIM_AFTER_MS = 25;

/**
 * Calls a handler as a transaction and leaves a receipt, whatever happens.
 *
 * @param resources What the call runs with.
 * @param projectDir The project folder.
 * @param id The package id.
 * @param handler The handler's name.
 * @param options Why and for whom the call is made, and what the caller already knows.
 * @returns The handler's answer (`null` when it returned nothing) and the receipt.
 * @throws A domain error from `errors.ts` naming why the call failed; nothing was committed then.
 */
export async function callHandler(
  resources: CallResources,
  projectDir: string,
  id: string,
  handler: string,
  options: CallOptions,
): Promise<CallResult> {
  // An id no package can have is no attempt of a package's handler: there is
  // nothing to call, and no receipt could be keyed by it.
  if (!isPackageId(id)) throw new InvalidInputError(notAPackageId(id));
  const project = await resolveProjectDir(projectDir);
  try {
    return await callOnce(resources, project, id, handler, options, true);
  } catch (error) {
    if (!(error instanceof StaleServingError)) throw error;
    // Resolved from approvals or refs another writer had changed: nothing of
    // the attempt counted (its claim was refused), so it is made again from
    // what is stored now, as though it had been read first.
    return await callOnce(resources, project, id, handler, options, false);
  }
}

/**
 * Refuses an attempt whose claim found the approvals or refs it was resolved
 * from changed; never leaves {@linkcode callHandler}, which makes the call again.
 */
class StaleServingError extends Error {
  override name = "StaleServingError";
}

/**
 * One attempt at a call. With `keptReads`, the approvals and refs may be those
 * kept from earlier calls, which the claim then proves or refuses with
 * {@linkcode StaleServingError} before anything of the attempt counts.
 */
async function callOnce(
  resources: CallResources,
  project: string,
  id: string,
  handler: string,
  options: CallOptions,
  keptReads: boolean,
): Promise<CallResult> {
  const { kv, now, limits } = resources;
  const startedAt = now();
  const claimKey = runningClaimKey(project, id, handler);
  const here = resources.runningHere;
  const hereKey = `${project}\0${id}\0${handler}`;
  let inHere = false;
  let hold = null as HandlerHold | null;
  /** The claim, once begun; settles when it is decided. */
  let claimed: Promise<void> | null = null;
  let beginClaim: (() => Promise<void>) | null = null;
  let claimTimer: ReturnType<typeof setTimeout> | undefined;
  /** The receipt was written by the write that recorded an unclaimed call. */
  let recorded = false;
  let transaction: MemoryTransaction | undefined;
  /** The project's memory, the generation and the readable kinds, once asked for. */
  let preparing: Promise<MemoryTransaction> | null = null;
  /** The handler called a host function, which waited for `preparing`. */
  let askedHost = false;
  /** The call claims only once it needs to: it is written down in the journal. */
  let journaled: CallJournal | null = null;
  let snapshot: ServingSnapshot | undefined;
  /** The attempt is to be made again: it leaves no receipt. */
  let stale = false;
  /** The work the call ordered; committed into the project's outbox when the call ends `ok`. */
  const ordered: HostFunctionContext["orders"] = [];
  const forMs = limits.timeoutMs + limits.workerGraceMs + 5_000;
  const busy = () =>
    new HandlerBusyError(
      `${handler} is already running in ${project}; a handler is not re-entered. ` +
        `Try again when it ends (the claim of a call whose process was killed is let go ` +
        `of at once, or within ${Math.ceil(forMs / 1000)} s where the host cannot tell)`,
    );
  const receipt: Receipt = {
    id: newId(startedAt),
    project,
    packageId: id,
    handler,
    occasion: options.occasion,
    source: options.source,
    startedAt: new Date(startedAt).toISOString(),
    endedAt: "",
    outcome: "ok",
  };
  /** The handler's console lines, told once the call is known to count. */
  const lines: string[] = [];
  let telling = false;
  const tell = () => {
    telling = true;
    for (const line of lines.splice(0)) resources.log(line);
  };
  /** The lines kept with the receipt, once the call counts. */
  const keep = new ConsoleKeep();
  const noteConsole = () => {
    if (keep.kept > 0) receipt.consoleLines = keep.kept;
    else delete receipt.consoleLines;
  };
  try {
    const declaredIds = options.declaredIds ?? await readDeclaredIds(project);
    // The package and every other the project lists (for the kinds they
    // publish) are resolved from their approvals and refs: as kept from the
    // last call when they are, proven by the claim's checks; else read at once.
    const reads = resources.servingReads;
    const resolve = async (entries: Map<string, ServingEntries>) => {
      const pkg = options.package ??
        await servingPackage(kv, project, id, { declaredIds, ...entries.get(id) });
      // Own names only: `toString` or `constructor` is on every object's
      // prototype and is declared by no manifest.
      if (!Object.hasOwn(pkg.manifest.handlers, handler)) {
        const declared = Object.keys(pkg.manifest.handlers);
        throw new NotFoundError(
          `${id} has no handler ${handler}` +
            (declared.length ? `; it declares ${declared.join(", ")}` : "; it declares none"),
        );
      }
      return pkg;
    };
    let pkg: LoadedPackage | undefined;
    snapshot = keptReads ? reads?.kept(project, declaredIds) ?? undefined : undefined;
    if (snapshot) {
      // What was kept may be what refuses: only what is stored now decides that.
      pkg = await resolve(snapshot.entries).catch(() => undefined);
    }
    if (!snapshot || !pkg) {
      snapshot = await (reads ?? new ServingReads()).read(kv, project, declaredIds, {
        checked: keptReads && reads !== undefined,
      });
      pkg = await resolve(snapshot.entries);
    }
    const serving = snapshot.entries;
    // A handler running in this process is refused at once, whether it has
    // claimed its handler in the installation yet or not.
    if (here?.has(hereKey)) throw busy();
    here?.add(hereKey);
    inHere = here !== undefined;
    // The claim carries the receipt, so a call whose process is killed still
    // leaves one; a call that claims only once it needs to is written down in
    // the journal first, for the same reason.
    const lock = await resources.processLock?.();
    const journal = here ? resources.callJournal?.() ?? null : null;
    if (journal?.started(receipt)) journaled = journal;
    // The rate count and the checks of what the package was resolved from are
    // written with the claim, or with the receipt of a call that never claimed.
    const alongside = bothCompanions(
      resources.rateLimit.alongside(project, id, handler, startedAt),
      snapshot,
    );
    const refused = new AbortController();
    /** Tells that the call started, once it counts: its claim held, or its receipt recorded. */
    const started = () => {
      resources.events?.publish({
        type: "handler-started",
        project,
        packageId: id,
        handler,
        receiptId: receipt.id,
        startedAt: receipt.startedAt,
      });
      tell();
    };
    beginClaim = () => {
      if (claimed) return claimed;
      clearTimeout(claimTimer);
      claimed = holdHandler(kv, claimKey, { now, forMs, receipt, lock, alongside }).then(
        (held) => {
          hold = held;
          if (held === null) throw busy();
          started();
        },
      );
      // Nothing the isolate did counts once the claim is refused.
      claimed.catch(() => refused.abort());
      return claimed;
    };
    if (journaled) {
      claimTimer = setTimeout(
        () => beginClaim?.().catch(() => {}),
        resources.claimAfterMs ?? CLAIM_AFTER_MS,
      );
    } else beginClaim().catch(() => {});
    /** A host function that stages writes was called: the commit waits for the claim. */
    let staging = false;

    // The project's memory, the generation and the readable kinds are read
    // for the first host function, or beside the isolate when the module
    // imports the service API (only a module that does can call one): the
    // handler reaches none of them except through host functions, and those
    // wait for all of it, so the call starts, as far as anything it can touch
    // is concerned, once the generation is read.
    let dispatch: Pick<CallHooks, "host" | "answerLimit"> | undefined;
    const prepare = () =>
      preparing ??= (async () => {
        const memory = await resources.projectMemory(project);
        // The kinds it may read are found while the generation is read.
        const [generation, kinds] = await Promise.all([
          options.generation ?? readGeneration(memory, id),
          readableKinds(kv, project, pkg, declaredIds, serving),
        ]);
        transaction = new MemoryTransaction(memory, {
          packageId: id,
          project,
          generation,
          // Each revision the call writes keeps the receipt's id.
          receiptId: receipt.id,
          now: () => new Date(now()),
          cursors: resources.cursors,
        });
        const access = new MemoryAccess(id, kinds);
        dispatch = hostDispatch({
          package: pkg,
          project,
          handler,
          call: { occasion: options.occasion, source: options.source, startedAt },
          transaction,
          access,
          orders: ordered,
          kv,
          now,
          limits,
          fetch: resources.fetch,
          resolve: resources.resolve,
          workState: resources.workState,
          agents: resources.agents,
        });
        return transaction;
      })();
    const source = await readServiceSource(pkg);
    const importsApi = source.includes(SERVICE_API_SPECIFIER);
    if (importsApi) prepare().catch(() => {});
    const learnt = importsApi ? resources.learntReads : undefined;
    let readsMade: ReadAhead[] = [];
    const running = resources.pool.call({
      source,
      sourceName: `${id}/${pkg.manifest.service}`,
      packageId: id,
      handler,
      payload: options.payload ?? null,
      occasion: options.occasion,
      limits,
      ahead: learnt?.ahead(hereKey, source),
    }, {
      // A read ahead runs as the handler's own read would, inside its
      // transaction, but is not the handler asking: it neither claims nor
      // makes the memory's failure to open the call's failure.
      readAhead: async (fn, args, signal) => {
        await prepare();
        return await dispatch!.host(fn, args, signal);
      },
      readsMade: (reads) => readsMade = reads,
      host: async (fn, args, signal) => {
        // Reads run at once; a write is staged at once and begins the claim,
        // which the commit waits for; an act outside Sync waits for the claim.
        const reach = reachOf(fn);
        askedHost = true;
        if (reach === "acts") await beginClaim!();
        else if (reach === "stages") {
          staging = true;
          beginClaim!().catch(() => {});
        }
        await prepare();
        return await dispatch!.host(fn, args, signal);
      },
      // Asked only once a host function answered, so after `preparing`.
      answerLimit: (fn) => dispatch?.answerLimit?.(fn),
      log: (level: ConsoleLevel, text, notice) => {
        if (notice) keep.droppedBefore();
        else keep.add(level, text);
        const line = consoleLine(id, level, text);
        if (telling) resources.log(line);
        else lines.push(line);
      },
      consoleDropped: (count) => keep.dropped(count),
      signal: refused.signal,
      cancel: options.signal,
    });
    // The records and the orders (in the project's outbox) in one atomic write,
    // begun once the handler answers: a transaction that staged writes commits
    // once the claim is held. One that staged nothing has nothing to fence: it
    // read what it read under the generation read as it started, and is
    // ended there; under a generation the caller gave, its commit reads the
    // generation to check it, even while a claim is being written.
    const answered = running.then(async (value) => {
      clearTimeout(claimTimer);
      if (staging) await beginClaim!();
      // Called off after the handler answered but before its commit began: nothing commits.
      if (options.signal?.aborted) {
        throw new CancelledError(
          `The call of ${handler} was cancelled by its caller; nothing it did was committed`,
        );
      }
      if (staging || options.generation) {
        // The receipt names what the commit wrote: it is written after, in the installation.
        const committed = await (await prepare()).commit();
        Object.assign(receipt, receiptRecords(committed.changes));
      } // A memory read beside the isolate that the handler never used does not fail it.
      else if (preparing) await preparing.then((unused) => unused.discard(), () => {});
      return value;
    });
    // A refused claim is the call's outcome, whatever its isolate did meanwhile.
    answered.catch(() => {});
    await (claimed as Promise<void> | null);
    const value = await answered;
    receipt.endedAt = new Date(now()).toISOString();
    // A claim begun while the transaction committed decides the call.
    await (claimed as Promise<void> | null);
    if (!claimed) {
      // The call reached nothing outside its transaction, which committed
      // nothing, and ended before it needed a claim: its receipt is written
      // as though it had claimed and let go, or it is refused as its claim
      // would have been.
      noteConsole();
      if (
        !await recordUnclaimedCall(kv, claimKey, { now: now(), forMs, receipt, lock, alongside })
      ) {
        throw busy();
      }
      recorded = true;
      started();
    }
    learnt?.learn(hereKey, source, readsMade);
    return { value, receipt };
  } catch (error) {
    let failure = error;
    clearTimeout(claimTimer);
    // The project's memory could not be read for a host function: that is
    // why the call failed, not the error its handler was handed for it.
    if (preparing && askedHost) {
      await (preparing as Promise<unknown>).catch((unready) => failure = unready);
    }
    // A call that ran without a claim and failed claims now: its receipt is
    // written with the claim's checks and the rate count, and a call its
    // claim would have refused (busy, over its rate) is told that refusal
    // instead; a claim that could not be written at all (the installation
    // closing) leaves the call's own error to tell.
    if (beginClaim && !claimed && !recorded && !snapshot?.stale) {
      await beginClaim().catch((refusal) => {
        if (refusal instanceof SyncError) failure = refusal;
      });
    }
    // A refused claim is the call's outcome, whatever its isolate did meanwhile;
    // and what failed may have been read from entries the claim finds changed.
    if (claimed) await (claimed as Promise<void>).catch((refusal) => failure = refusal);
    if (snapshot?.stale && hold === null) {
      stale = true;
      resources.servingReads?.forget(project);
      throw new StaleServingError(describeError(failure).message);
    }
    try {
      transaction?.discard();
    } catch {
      // A commit that was refused already finished the transaction; its error is the one to tell.
    }
    receipt.outcome = failure instanceof CancelledError ? "cancelled" : "failed";
    receipt.error = describeError(failure);
    receipt.endedAt = new Date(now()).toISOString();
    throw failure;
  } finally {
    clearTimeout(claimTimer);
    // A call that failed before its claim was decided lets go of it once it is.
    if (claimed) await (claimed as Promise<void>).catch(() => {});
    if (inHere) here?.delete(hereKey);
    const busyCall = receipt.error?.name === "HandlerBusyError" && hold === null;
    // A call that never counted told none of its lines, and keeps none; an
    // ok call's orders were committed with it.
    const counted = hold !== null || recorded;
    if (counted) noteConsole();
    else delete receipt.consoleLines;
    if (receipt.outcome === "ok" && ordered.length > 0) {
      receipt.ordered = ordered.map((order) => order.key);
    }
    const wanted = !(busyCall && options.noReceiptWhenBusy) && !stale && !recorded;
    // Letting go and the receipt are one write. Whether it fails or not, the
    // caller is told what happened to the call: a call that committed is not
    // reported as failed because its receipt could not be written.
    let written = recorded;
    try {
      if (hold) await (hold as HandlerHold).release(wanted ? receipt : undefined);
      else if (wanted) await writeReceipt(kv, receipt);
      written ||= wanted;
    } catch (error) {
      resources.log(
        `[host] the receipt of ${handler} in ${project} (${receipt.id}, outcome ` +
          `${receipt.outcome}) could not be written: ${describeError(error).message}` +
          (hold ? "; its claim becomes an interrupted receipt once it runs out" : ""),
      );
    }
    // Written down as ended once its receipt is, or once there is none to write.
    journaled?.ended(receipt.id);
    const kept = keep.stored();
    if (written && receipt.consoleLines !== undefined && kept) {
      await writeReceiptConsole(kv, receipt, kept).catch((error) =>
        resources.log(
          `[host] the console lines of ${handler} in ${project} (${receipt.id}) could not be ` +
            `kept with its receipt: ${describeError(error).message}`,
        )
      );
    }
    if (written) options.onReceipt?.(boundReceipt(receipt));
    // Told once written, so a page that reads again on hearing it finds it.
    if (written) {
      resources.events?.publish({
        type: "receipt",
        project,
        packageId: id,
        receipt: boundReceipt(receipt),
        ...(receipt.outcome === "ok" && ordered.length > 0 ? { workOrdered: true } : {}),
      });
    }
    if (hold || recorded) {
      resources.events?.publish({
        type: "handler-ended",
        project,
        packageId: id,
        handler,
        receiptId: receipt.id,
        outcome: receipt.outcome,
      });
    }
  }
}

/** What a host function reaches, for when the call must hold its claim; an unknown name acts. */
function reachOf(fn: HostFunctionName): HostFunction["reach"] {
  try {
    return findHostFunction(fn).reach;
  } catch {
    // The table refuses it when called; until then it is taken at its worst.
    return "acts";
  }
}

/**
 * The claim's companions together: the rate count, and the checks proving
 * the approvals and refs the call was resolved from.
 */
function bothCompanions(rate: ClaimCompanion, serving: ServingSnapshot): ClaimCompanion {
  const split = rate.keys.length;
  return {
    keys: [...rate.keys, ...serving.keys],
    add(op, entries) {
      // Entries found changed void the attempt before its rate is judged.
      serving.add(op, entries.slice(split));
      rate.add(op, entries.slice(0, split));
    },
    remembered() {
      const kept = rate.remembered?.();
      return kept ? [...kept, ...serving.remembered()] : null;
    },
    written: (versionstamp) => rate.written?.(versionstamp),
  };
}
