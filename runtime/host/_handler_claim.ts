/**
 * The claim of one attempt (`call.ts`): a handler is not re-entered, is
 * counted against its rate limit, and runs on approvals and refs still as
 * they were read. In this process the claim is the set of handlers running
 * here, taken at once; in the installation it is a claim written once the
 * call needs one (`CLAIM_AFTER_MS`), or, for a call that never needed one,
 * the one write that records its receipt as though it had claimed and let
 * go. The rate count and the checks of what the call was resolved from go
 * with either write.
 *
 * @module
 */
import { HandlerBusyError, SyncError } from "../errors.ts";
import type { ServingSnapshot } from "../packages/mod.ts";
import type { Receipt } from "../types.ts";
import type { CallJournal } from "./call_journal.ts";
import type { AttemptOf, CallResources } from "./call_options.ts";
import { runningClaimKey } from "./keys.ts";
import type { ProcessLock } from "./process_lock.ts";
import {
  type ClaimCompanion,
  type HandlerHold,
  holdHandler,
  recordUnclaimedCall,
} from "./running_claim.ts";
import type { AttemptReceipt, EndedClaim } from "./_attempt_receipt.ts";

/** Options of a {@linkcode HandlerClaim}. */
export interface HandlerClaimOptions {
  /**
   * Whether the call counts against the handler's rate; true by default. A
   * device task's attempt counts once, at its first step: its steps are
   * bounded by `maxStepsPerAttempt` and admitted one at a time.
   */
  rated?: boolean;
}

/** The claim of one attempt; see the module's documentation. */
export class HandlerClaim implements EndedClaim {
  #resources: CallResources;
  #of: AttemptOf;
  #receipt: AttemptReceipt;
  #rated: boolean;
  #startedAt: number;
  #claimAfterMs: number;
  /** The claim's key in the installation. */
  #key: Deno.KvKey;
  /** How long one stretch of the claim lasts, in ms. */
  #forMs: number;
  /** The handler is in this process's set of running handlers. */
  #inHere = false;
  #lock: ProcessLock | undefined;
  /** The call claims only once it needs to: it is written down in the journal. */
  #journaled: CallJournal | null = null;
  /** What the claim writes besides itself: the rate count and the serving checks. */
  #alongside: ClaimCompanion | undefined;
  #snapshot: ServingSnapshot | undefined;
  /** Entered: the claim can be begun. */
  #entered = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The claim, once begun; settles when it is decided. */
  #claimed: Promise<void> | null = null;
  #hold: HandlerHold | null = null;
  /** The receipt was written by the write that recorded an unclaimed call. */
  #recorded = false;
  /** Aborted once the claim is refused: nothing the isolate did counts then. */
  #refused = new AbortController();
  /** What is proven before the claim is written (the call's generation), once set. */
  #first: (() => Promise<void>) | undefined;

  /**
   * The claim of an attempt not yet entered.
   *
   * @param resources The installation, the process's running handlers and journal.
   * @param of The project, package and handler.
   * @param receipt The attempt's receipt: the claim carries it, and tells it when the call counts.
   * @param startedAt When the attempt started, in ms: its rate count's time.
   * @param claimAfterMs How long the call runs before it claims when nothing else made it.
   * @param options Whether the call counts against the handler's rate.
   */
  constructor(
    resources: CallResources,
    of: AttemptOf,
    receipt: AttemptReceipt,
    startedAt: number,
    claimAfterMs: number,
    options: HandlerClaimOptions = {},
  ) {
    this.#rated = options.rated ?? true;
    this.#resources = resources;
    this.#of = of;
    this.#receipt = receipt;
    this.#startedAt = startedAt;
    this.#claimAfterMs = claimAfterMs;
    this.#key = runningClaimKey(of.project, of.id, of.handler);
    const limits = resources.limits;
    this.#forMs = limits.timeoutMs + limits.workerGraceMs + 5_000;
  }

  /** The handler as this process names it among those running here. */
  get name(): string {
    return `${this.#of.project}\0${this.#of.id}\0${this.#of.handler}`;
  }

  /** Aborted once the claim is refused; the isolate then drops the call. */
  get refusedSignal(): AbortSignal {
    return this.#refused.signal;
  }

  /** The claim is held in the installation. */
  get held(): boolean {
    return this.#hold !== null;
  }

  /** The call never claimed, and its receipt was recorded by the write that checked it could have. */
  get recorded(): boolean {
    return this.#recorded;
  }

  /** The call counts: its claim held, or its receipt recorded. */
  get counted(): boolean {
    return this.#hold !== null || this.#recorded;
  }

  /** The claim found the approvals or refs the call was resolved from changed: it is made again. */
  get foundStale(): boolean {
    return this.#snapshot?.stale === true && this.#hold === null;
  }

  /** The refusal of a call of a handler already running. */
  busy(): HandlerBusyError {
    const { project, handler } = this.#of;
    return new HandlerBusyError(
      `${handler} is already running in ${project}; a handler is not re-entered. ` +
        `Try again when it ends (the claim of a call whose process was killed is let go ` +
        `of at once, or within ${Math.ceil(this.#forMs / 1000)} s where the host cannot tell)`,
    );
  }

  /**
   * Enters the handler in this process, refusing it at once when it runs
   * here already, and begins the claim: at once where no journal is kept,
   * else once the call has run `claimAfterMs` (or sooner, when it needs it).
   * The claim carries the receipt, so a call whose process is killed still
   * leaves one; a call that claims only once it needs to is written down in
   * the journal first, for the same reason.
   *
   * @param snapshot The approvals and refs the call was resolved from, which the claim checks.
   * @throws {HandlerBusyError} when the handler runs in this process already.
   */
  async enter(snapshot: ServingSnapshot): Promise<void> {
    const resources = this.#resources;
    const here = resources.runningHere;
    if (here?.has(this.name)) throw this.busy();
    here?.add(this.name);
    this.#inHere = here !== undefined;
    this.#snapshot = snapshot;
    this.#lock = await resources.processLock?.();
    const journal = here ? resources.callJournal?.() ?? null : null;
    if (journal?.started(this.#receipt.receipt)) this.#journaled = journal;
    const { project, id, handler } = this.#of;
    this.#alongside = bothCompanions(
      this.#rated ? resources.rateLimit.alongside(project, id, handler, this.#startedAt) : UNRATED,
      snapshot,
    );
    this.#entered = true;
    if (this.#journaled) {
      this.#timer = setTimeout(() => this.begin().catch(() => {}), this.#claimAfterMs);
    } else this.begin().catch(() => {});
  }

  /**
   * What must be proven before the claim is written: when it fails, the
   * claim is refused with its error and writes nothing. Called at once when
   * the claim has begun already.
   */
  proveFirst(first: () => Promise<void>): void {
    this.#first = first;
    if (this.#claimed) first().catch(() => {});
  }

  /** Whether the claim has begun (it may not be decided yet). */
  get begun(): boolean {
    return this.#claimed !== null;
  }

  /**
   * Begins the claim, once: a refused claim (busy, over its rate, or its
   * serving checks failed) rejects, and aborts {@linkcode refusedSignal}.
   */
  begin(): Promise<void> {
    if (this.#claimed) return this.#claimed;
    clearTimeout(this.#timer);
    const hold = () =>
      holdHandler(this.#resources.kv, this.#key, {
        now: this.#resources.now,
        forMs: this.#forMs,
        receipt: this.#receipt.receipt,
        lock: this.#lock,
        alongside: this.#alongside,
      });
    this.#claimed = (this.#first ? this.#first().then(hold) : hold()).then((held) => {
      this.#hold = held;
      if (held === null) throw this.busy();
      this.#receipt.counts();
    });
    // Nothing the isolate did counts once the claim is refused.
    this.#claimed.catch(() => this.#refused.abort());
    return this.#claimed;
  }

  /** The claim as it stands: settled when begun and decided; rejects when refused. */
  async decided(): Promise<void> {
    await this.#claimed;
  }

  /** Stops waiting to claim: the call needs no claim for having run long. */
  stopTimer(): void {
    clearTimeout(this.#timer);
  }

  /**
   * Records the receipt of a call that never claimed — it reached nothing
   * outside its transaction, which committed nothing, and ended before it
   * needed a claim — as though it had claimed and let go, in one write.
   *
   * @throws {HandlerBusyError} when another call held the handler meanwhile, as its claim would have been.
   * @throws What the claim's companions throw (over its rate, serving changed).
   */
  async recordUnclaimed(): Promise<void> {
    this.#receipt.noteConsole();
    const recorded = await recordUnclaimedCall(this.#resources.kv, this.#key, {
      now: this.#resources.now(),
      forMs: this.#forMs,
      receipt: this.#receipt.receipt,
      lock: this.#lock,
      alongside: this.#alongside,
    });
    if (!recorded) throw this.busy();
    this.#recorded = true;
    this.#receipt.counts();
  }

  /**
   * The call failed with `failure`: a call that ran without a claim claims
   * now, so its receipt is written with the claim's checks and the rate
   * count, and a call its claim would have refused (busy, over its rate) is
   * told that refusal instead; a claim that could not be written at all (the
   * installation closing) leaves the call's own error to tell. A refused
   * claim is the call's outcome, whatever its isolate did meanwhile.
   *
   * @returns The failure to tell.
   */
  async failed(failure: unknown): Promise<unknown> {
    clearTimeout(this.#timer);
    if (this.#entered && !this.#claimed && !this.#recorded && !this.#snapshot?.stale) {
      await this.begin().catch((refusal) => {
        if (refusal instanceof SyncError) failure = refusal;
      });
    }
    if (this.#claimed) await this.#claimed.catch((refusal) => failure = refusal);
    return failure;
  }

  /** Waits for a claim begun to be decided, whatever it decides. */
  async settled(): Promise<void> {
    clearTimeout(this.#timer);
    if (this.#claimed) await this.#claimed.catch(() => {});
  }

  /** Lets go of the claim, writing `receipt` in the same write when given. */
  async release(receipt?: Receipt): Promise<void> {
    await this.#hold?.release(receipt);
  }

  /** Takes the handler out of this process's running handlers. */
  leaveHere(): void {
    if (this.#inHere) this.#resources.runningHere?.delete(this.name);
  }

  /** Writes down in the journal that the call ended. */
  journalEnded(): void {
    this.#journaled?.ended(this.#receipt.receipt.id);
  }
}

/**
 * The claim's companions together: the rate count, and the checks proving
 * the approvals and refs the call was resolved from.
 */
/** The rate companion of a call that does not count against its handler's rate. */
const UNRATED: ClaimCompanion = {
  keys: [],
  add() {},
  remembered: () => [],
};

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
