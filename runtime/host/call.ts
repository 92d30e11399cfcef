/**
 * Calling a handler: the package that serves the project is resolved, the
 * handler is run in the isolate pool as a transaction over project memory,
 * claimed so it is not re-entered once it needs to be (see
 * {@linkcode CLAIM_AFTER_MS}) and counted against its rate limit, and every
 * attempt leaves a receipt.
 *
 * @module
 */
import { CancelledError, InvalidInputError, NotFoundError } from "../errors.ts";
import { describeError } from "../internal/describe_error.ts";
import { type ConsoleLevel, type ReadAhead, SERVICE_API_SPECIFIER } from "../isolate/mod.ts";
import {
  isPackageId,
  notAPackageId,
  readServiceSource,
  type ServingEntries,
  servingPackage,
  ServingReads,
  type ServingSnapshot,
} from "../packages/mod.ts";
import { readDeclaredIds, resolveProjectDir } from "../projects/mod.ts";
import type { Receipt } from "../types.ts";
import { receiptRecords } from "./receipts.ts";
import type { AttemptOf, CallOptions, CallResources } from "./call_options.ts";
import { AttemptReceipt } from "./_attempt_receipt.ts";
import { CallTransaction, type Serving } from "./_call_transaction.ts";
import { HandlerClaim } from "./_handler_claim.ts";

export type { AttemptOf, CallOptions, CallResources } from "./call_options.ts";

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
   * @throws {FencedError} when `options.account` is given and the device's account changed
   *   while it ran.
   * @throws {CancelledError} when `options.signal` aborted before the call committed.
   */
  callHandler(
    projectDir: string,
    id: string,
    handler: string,
    options: CallOptions,
  ): Promise<CallResult>;
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
    // Resolved from approvals or refs another writer had changed, or run
    // under a generation kept from the last call that had moved on: nothing
    // of the attempt counted (its claim was refused, or never begun), so it
    // is made again from what is stored now, as though it had been read first.
    return await callOnce(resources, project, id, handler, options, false);
  }
}

/**
 * Refuses an attempt whose claim found the approvals or refs it was resolved
 * from changed, or whose first write found the generation kept from the last
 * call moved on after it read, before it counted; never leaves
 * {@linkcode callHandler}, which makes the call again.
 */
class StaleServingError extends Error {
  override name = "StaleServingError";
}

/**
 * One attempt at a call, in its five steps, each with the state it owns:
 * {@linkcode resolveServing} (what serves), {@linkcode HandlerClaim} (the
 * claim), {@linkcode runInIsolate} (the handler run, its host functions in a
 * {@linkcode CallTransaction}), {@linkcode commitWithOutbox} (the commit), and
 * {@linkcode AttemptReceipt} (the receipt, left whatever happened). With
 * `keptReads`, the approvals and refs may be those kept from earlier calls,
 * which the claim then proves or refuses with {@linkcode StaleServingError}
 * before anything of the attempt counts, and the generation may be the one
 * kept from the last call, which its first write proves (else, while the
 * attempt has not counted, it is refused with {@linkcode StaleServingError}).
 */
async function callOnce(
  resources: CallResources,
  project: string,
  id: string,
  handler: string,
  options: CallOptions,
  keptReads: boolean,
): Promise<CallResult> {
  const startedAt = resources.now();
  const of = { project, id, handler };
  const receipt = new AttemptReceipt(resources, of, options, startedAt);
  const claimAfterMs = resources.claimAfterMs ?? CLAIM_AFTER_MS;
  const occasion = options.occasion;
  const claim = new HandlerClaim(resources, of, receipt, startedAt, claimAfterMs, {
    rated: !(occasion.kind === "task" && (occasion.task?.step ?? 1) > 1),
  });
  let transaction: CallTransaction | undefined;
  /** The attempt is to be made again: it leaves no receipt. */
  let again = false;
  try {
    // 1. What serves.
    const { serving, snapshot } = await resolveServing(resources, of, options, keptReads);
    // 2. The claim: refused at once when the handler runs here; begun now, or once needed.
    await claim.enter(snapshot);
    transaction = new CallTransaction(resources, of, serving, options, {
      at: startedAt,
      receiptId: receipt.receipt.id,
      keptGeneration: keptReads,
    });
    claim.proveFirst(() => transaction!.beforeClaim());
    // 3. and 4. The handler run in the isolate, then its commit with the outbox.
    const value = await runAndCommit(resources, {
      of,
      serving,
      options,
      claim,
      transaction,
      receipt,
    });
    return { value, receipt: receipt.receipt };
  } catch (error) {
    claim.stopTimer();
    // Run under a generation that may have moved on before it started, and
    // nothing of it counted yet: it is made again, reading the generation first.
    if (transaction?.generationMoved) await claim.settled();
    if (transaction?.generationMoved && !claim.counted) {
      again = true;
      transaction.discard();
      throw new StaleServingError(describeError(error).message);
    }
    const failure = await claim.failed(await transaction?.failureOf(error) ?? error);
    // What failed may have been read from entries the claim finds changed.
    if (claim.foundStale) {
      again = true;
      resources.servingReads?.forget(project);
      throw new StaleServingError(describeError(failure).message);
    }
    transaction?.discard();
    receipt.failed(failure, resources.now());
    throw failure;
  } finally {
    // 5. The receipt, with the claim's release, whatever happened.
    await receipt.leave({
      claim,
      ordered: transaction?.ordered.map((order) => order.key) ?? [],
      again,
    });
  }
}

/**
 * Step 1: the package that serves `id` in the project, and every other the
 * project lists (for the kinds they publish), resolved from their approvals
 * and refs: as kept from the last call when they are, proven by the claim's
 * checks; else read at once.
 *
 * @throws {NotFoundError} when the package or the handler does not exist.
 * @throws {ApprovalRequiredError} when nothing approved can serve.
 */
async function resolveServing(
  resources: CallResources,
  { project, id, handler }: AttemptOf,
  options: CallOptions,
  keptReads: boolean,
): Promise<{ serving: Serving; snapshot: ServingSnapshot }> {
  const kv = resources.kv;
  const declaredIds = options.declaredIds ?? await readDeclaredIds(project);
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
  let snapshot = keptReads ? reads?.kept(project, declaredIds) ?? undefined : undefined;
  // What was kept may be what refuses: only what is stored now decides that.
  let pkg = snapshot ? await resolve(snapshot.entries).catch(() => undefined) : undefined;
  if (!snapshot || !pkg) {
    snapshot = await (reads ?? new ServingReads()).read(kv, project, declaredIds, {
      checked: keptReads && reads !== undefined,
    });
    pkg = await resolve(snapshot.entries);
  }
  return { serving: { pkg, declaredIds, entries: snapshot.entries }, snapshot };
}

/** What steps 3 and 4 of an attempt work with. */
interface Attempt {
  of: AttemptOf;
  serving: Serving;
  options: CallOptions;
  claim: HandlerClaim;
  transaction: CallTransaction;
  receipt: AttemptReceipt;
}

/**
 * Steps 3 and 4: runs the handler in the isolate and commits what it staged
 * once it answers; then, for a call that never claimed, records its receipt
 * in the one write that checks it could have claimed.
 *
 * @returns The handler's answer.
 */
async function runAndCommit(resources: CallResources, attempt: Attempt): Promise<unknown> {
  const { serving, claim, transaction, receipt } = attempt;
  const source = await readServiceSource(serving.pkg);
  // Only a module that imports the service API can call a host function: its
  // transaction is made ready beside the isolate.
  const importsApi = source.includes(SERVICE_API_SPECIFIER);
  if (importsApi) transaction.prepare().catch(() => {});
  const learnt = importsApi ? resources.learntReads : undefined;
  let readsMade: ReadAhead[] = [];
  const running = runInIsolate(resources, attempt, source, {
    ahead: learnt?.ahead(claim.name, source),
    readsMade: (reads) => readsMade = reads,
  });
  const answered = running.then((value) => commitWithOutbox(attempt, value));
  // A refused claim is the call's outcome, whatever its isolate did meanwhile.
  answered.catch(() => {});
  await claim.decided();
  const value = await answered;
  receipt.ended(resources.now());
  // A claim begun while the transaction committed decides the call.
  await claim.decided();
  if (!claim.begun) await claim.recordUnclaimed();
  learnt?.learn(claim.name, source, readsMade);
  return value;
}

/**
 * Step 3: the handler run in a worker of the pool. Host functions run in the
 * call's transaction: reads at once; a write is staged at once and begins the
 * claim, which the commit waits for; an act outside Sync (a request) waits for
 * the claim. The handler's console lines go to its receipt.
 */
function runInIsolate(
  resources: CallResources,
  { of, serving, options, claim, transaction, receipt }: Attempt,
  source: string,
  learning: { ahead: ReadAhead[] | undefined; readsMade: (reads: ReadAhead[]) => void },
): Promise<unknown> {
  return resources.pool.call({
    source,
    sourceName: `${of.id}/${serving.pkg.manifest.service}`,
    packageId: of.id,
    handler: of.handler,
    payload: options.payload ?? null,
    occasion: options.occasion,
    limits: resources.limits,
    now: resources.now(),
    ahead: learning.ahead,
    // A device's task step is background work: its code gives way to a person's request.
    ...(options.account && resources.foreground ? { yieldTo: resources.foreground.held } : {}),
  }, {
    // A read ahead runs as the handler's own read would, inside its
    // transaction, but is not the handler asking: it neither claims nor
    // makes the memory's failure to open the call's failure.
    readAhead: (fn, args, signal) => transaction.run(fn, args, signal),
    readsMade: learning.readsMade,
    host: async (fn, args, signal) => {
      const reach = transaction.asked(fn);
      if (reach === "acts") await claim.begin();
      else if (reach === "stages") claim.begin().catch(() => {});
      return await transaction.run(fn, args, signal);
    },
    answerLimit: (fn) => transaction.answerLimit(fn),
    log: (level: ConsoleLevel, text, notice) => receipt.log(level, text, notice),
    consoleDropped: (count) => receipt.dropped(count),
    signal: claim.refusedSignal,
    cancel: options.signal,
  });
}

/**
 * Step 4, begun once the handler answers: the records and the orders (in the
 * project's outbox) in one atomic write. A transaction that staged writes
 * commits once the claim is held (its first write proved a generation kept
 * from the last call, and the commit checks it). One that staged nothing has
 * nothing to fence: what it read does not depend on the generation, read as
 * it started or kept from the last call, and it is ended there; under a
 * generation the caller gave, its commit reads the generation to check it,
 * even while a claim is being written. The receipt names what the commit
 * wrote: it is written after, in the installation.
 *
 * @throws {CancelledError} when the caller called the call off before its commit began.
 */
async function commitWithOutbox(
  { options, claim, transaction, receipt }: Attempt,
  value: unknown,
): Promise<unknown> {
  claim.stopTimer();
  if (transaction.staging) await claim.begin();
  if (options.signal?.aborted) {
    throw new CancelledError(
      `The call of ${receipt.receipt.handler} was cancelled by its caller; nothing it did was ` +
        `committed`,
    );
  }
  Object.assign(receipt.receipt, receiptRecords(await transaction.commit()));
  return value;
}
