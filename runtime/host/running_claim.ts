/**
 * Running claims: a handler is not re-entered while it runs in a project,
 * whichever process called it (a `sync call` beside `sync serve`'s clock,
 * say). A call claims its handler in the installation KV before it starts and
 * lets go when it ends, writing its receipt in the same atomic write.
 *
 * A claim holds the call's receipt as it stood when the call started and the
 * process that runs it (its {@linkcode ProcessMark}), and is renewed while the
 * call runs. A claim no longer counts once its process is known to be gone, or
 * once it has not been renewed for as long as a call can last; whoever finds
 * such a claim — the next call of the handler, or the next process to open the
 * installation ({@linkcode recordInterruptedCalls}) — turns it into a receipt
 * of outcome `interrupted`, so that every attempt leaves a receipt even when
 * its process was killed. Claims never expire on their own: a claim Deno KV
 * dropped would take the only trace of the attempt with it.
 *
 * @module
 */
import type { Receipt } from "../types.ts";
import { receiptKey, runningClaimsPrefix } from "./keys.ts";
import type { ProcessLock, ProcessMark } from "./process_lock.ts";
import { addReceipt, boundReceipt, trimReceiptsNowAndThen, writeReceipt } from "./receipts.ts";

/** What a running call holds. */
export interface RunningClaim {
  /** When the call started, in ms. */
  startedAt: number;
  /** After this (ms) the claim no longer counts: the call cannot still be running. */
  until: number;
  /** When the claim was made or last renewed, in ms: the last time its call was known to run. */
  renewedAt?: number;
  /** The process running the call, when it holds a lock others can test. */
  owner?: ProcessMark;
  /** The call's receipt as it stood when the call started; its outcome is decided when it ends. */
  receipt?: Receipt;
}

/** Options for {@linkcode claimHandler}. */
export interface ClaimHandlerOptions {
  /** The host's time, in ms. */
  now: number;
  /** How long a call can last at most, in ms. */
  forMs: number;
  /** The call's receipt as it stands when it starts, to be written if its process stops. */
  receipt?: Receipt;
  /**
   * This process's lock: the claim names it, and the claims of other
   * processes are tested against theirs. Without it, claims are judged by
   * their expiry alone.
   */
  lock?: ProcessLock;
  /** What else is decided and written in the claim's one read and one atomic write. */
  alongside?: ClaimCompanion;
  /**
   * The call has ended already and `receipt` is its receipt: the write records
   * the receipt in place of a claim, so that a call which needed no claim
   * while it ran is claimed and let go of in one write
   * ({@linkcode recordUnclaimedCall}).
   */
  ended?: boolean;
}

/**
 * Entries read with a claim and written in its atomic write (a handler's rate
 * count, say), so that a call costs one read and one write to claim, not two
 * of each.
 */
export interface ClaimCompanion {
  /** The keys to read with the claim, in the same read. */
  keys: Deno.KvKey[];
  /**
   * Adds checks and writes to the claim's atomic write, given the entries of
   * `keys` as read; throws to refuse the claim (nothing is written then).
   */
  add(op: Deno.AtomicOperation, entries: Deno.KvEntryMaybe<unknown>[]): void;
  /**
   * The entries of `keys` as this process last wrote them, when it remembers
   * them: the claim is then tried first without a read, its checks standing
   * in for one (a write by anyone since fails them, and the claim reads).
   */
  remembered?(): Deno.KvEntryMaybe<unknown>[] | null;
  /** Told the versionstamp of the claim's write once it is made, to remember what `add` wrote. */
  written?(versionstamp: string): void;
}

/**
 * Whether a claim still counts at `now`: it was renewed within its term and
 * its process is not known to be gone.
 */
async function stillHeld(
  claim: RunningClaim,
  now: number,
  lock: ProcessLock | undefined,
): Promise<boolean> {
  if (claim.until <= now) return false;
  if (claim.owner === undefined || lock === undefined) return true;
  return await lock.isGone(claim.owner) !== true;
}

/**
 * The receipt of a call whose claim no longer counts: its process stopped
 * before the call ended, or stopped renewing it.
 */
function interruptedReceipt(claim: RunningClaim, now: number): Receipt | null {
  if (!claim.receipt) return null;
  const pid = claim.owner ? ` (pid ${claim.owner.pid})` : "";
  const lastSeen = new Date(claim.renewedAt ?? claim.startedAt).toISOString();
  return {
    ...claim.receipt,
    endedAt: new Date(Math.max(now, claim.startedAt)).toISOString(),
    outcome: "interrupted",
    error: {
      name: "ProcessStopped",
      message: `The process that ran the call${pid} stopped before the call ended; it was ` +
        `last known running at ${lastSeen}. A call commits only when its handler returns, ` +
        `so nothing of it was committed unless it had returned.`,
    },
  };
}

/**
 * Adds, to `op`, the receipt of a claim that no longer counts, unless a
 * receipt with its id is already written.
 *
 * @param kv The installation's KV.
 * @param op The atomic write to add to.
 * @param claim The claim, or what stands for it (a call journal's entry).
 * @param now The host's time, in ms.
 * @returns The receipt added, or null.
 */
export async function addInterruptedReceipt(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  claim: RunningClaim,
  now: number,
): Promise<Receipt | null> {
  const receipt = interruptedReceipt(claim, now);
  if (receipt === null) return null;
  const key = receiptKey(receipt.project, receipt.packageId, receipt.id);
  if ((await kv.get(key)).versionstamp !== null) return null;
  await addReceipt(kv, op, receipt);
  return receipt;
}

/**
 * Claims a handler for one call. A claim that no longer counts is taken over,
 * and the receipt of the call it stood for is written as `interrupted` in the
 * same atomic write.
 *
 * @throws What `options.alongside` throws to refuse the claim; nothing is written then.
 * @returns The claim's versionstamp, to let go with; null when a call holds it already.
 */
export async function claimHandler(
  kv: Deno.Kv,
  key: Deno.KvKey,
  options: ClaimHandlerOptions,
): Promise<string | null> {
  const ended = options.ended && options.receipt ? options.receipt : null;
  const claim: RunningClaim | null = ended ? null : {
    startedAt: options.now,
    until: options.now + options.forMs,
    renewedAt: options.now,
    ...(options.lock?.held ? { owner: options.lock.mark } : {}),
    ...(options.receipt ? { receipt: boundReceipt(options.receipt) } : {}),
  };
  const alongside = options.alongside;
  // Adds the claim, or the ended call's receipt, to an atomic write.
  const put = async (op: Deno.AtomicOperation) => {
    if (claim) op.set(key, claim);
    else await addReceipt(kv, op, ended!);
  };
  // Most claims find the handler free and its companions as this process
  // left them: the first try takes that as read, and its checks (no claim
  // there; the companions' versionstamps) prove it or fail, and then it reads.
  const remembered = alongside ? alongside.remembered?.() : [];
  if (remembered) {
    const op = kv.atomic().check({ key, versionstamp: null });
    await put(op);
    let added = true;
    try {
      alongside?.add(op, remembered);
    } catch {
      // Refused on what this process remembers: what is stored decides.
      added = false;
    }
    const result = added ? await op.commit() : { ok: false as const };
    if (result.ok) {
      alongside?.written?.(result.versionstamp);
      return result.versionstamp;
    }
  }
  // A lost race against a process doing the same is settled by reading again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const [current, ...entries] = await readEntries(kv, [key, ...alongside?.keys ?? []]);
    const held = current.value as RunningClaim | null;
    if (held && await stillHeld(held, options.now, options.lock)) return null;
    const op = kv.atomic().check(current);
    await put(op);
    // The claim found is let go of in the same write: nothing takes its place.
    if (held && ended) op.delete(key);
    alongside?.add(op, entries);
    if (held) await addInterruptedReceipt(kv, op, held, options.now);
    const result = await op.commit();
    if (result.ok) {
      alongside?.written?.(result.versionstamp);
      return result.versionstamp;
    }
  }
  return null;
}

/** Options for {@linkcode recordUnclaimedCall}. */
export interface RecordUnclaimedCallOptions {
  /** The host's time, in ms. */
  now: number;
  /** How long a claim of this handler lasts, to judge one found there. */
  forMs: number;
  /** The ended call's receipt. */
  receipt: Receipt;
  /** This process's lock ({@linkcode ClaimHandlerOptions.lock}). */
  lock?: ProcessLock;
  /** What else is decided and written with it ({@linkcode ClaimHandlerOptions.alongside}). */
  alongside?: ClaimCompanion;
}

/**
 * Records a call that ended without having claimed its handler — it reached
 * nothing outside its own transaction, and that committed nothing — as
 * though it had claimed it and let go: one atomic write checks that no call
 * holds the handler (a claim that no longer counts becomes its `interrupted`
 * receipt, as {@linkcode claimHandler} does), adds `alongside` (the rate
 * count, say) and writes the receipt.
 *
 * @throws What `options.alongside` throws to refuse the call; nothing is written then.
 * @returns False, writing nothing, when another call holds the handler: this
 *   one overlapped it and is refused as its claim would have been.
 */
export async function recordUnclaimedCall(
  kv: Deno.Kv,
  key: Deno.KvKey,
  options: RecordUnclaimedCallOptions,
): Promise<boolean> {
  const written = await claimHandler(kv, key, { ...options, ended: true });
  if (written === null) return false;
  await trimReceiptsNowAndThen(kv, options.receipt);
  return true;
}

/** Keys one Deno KV `getMany` reads at most. */
const READ_AT_ONCE = 10;

/**
 * Reads entries in the order of their keys, in as many `getMany` reads as
 * Deno KV needs: the claim's companions may name dozens of keys (the
 * approval and ref of each package a project lists).
 */
async function readEntries(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<unknown>[]> {
  const reads: Promise<Deno.KvEntryMaybe<unknown>[]>[] = [];
  for (let at = 0; at < keys.length; at += READ_AT_ONCE) {
    reads.push(kv.getMany<unknown[]>(keys.slice(at, at + READ_AT_ONCE)));
  }
  return (await Promise.all(reads)).flat();
}

/**
 * Lets go of a claim this call holds (the versionstamp {@linkcode claimHandler}
 * answered), writing the call's receipt in the same atomic write when one is
 * given. When the claim is no longer this call's — another process found it
 * abandoned and took it over — the receipt is written alone, replacing the
 * `interrupted` one written for it.
 *
 * @throws What Deno KV throws when the write cannot be made; the claim then stays
 *   and becomes an `interrupted` receipt once it runs out.
 */
export async function releaseHandler(
  kv: Deno.Kv,
  key: Deno.KvKey,
  versionstamp: string,
  receipt?: Receipt,
): Promise<void> {
  for (let tries = 0; tries < RELEASE_TRIES; tries++) {
    const op = kv.atomic().check({ key, versionstamp }).delete(key);
    if (receipt) await addReceipt(kv, op, receipt);
    if ((await op.commit()).ok) {
      if (receipt) await trimReceiptsNowAndThen(kv, receipt);
      return;
    }
    // Still this call's claim: what failed the write was the handler's run, changed meanwhile.
    if (!receipt || (await kv.get(key)).versionstamp !== versionstamp) break;
  }
  if (receipt) await writeReceipt(kv, receipt);
}

/** Tries at letting go of a claim with its receipt, whose handler's run may change meanwhile. */
const RELEASE_TRIES = 3;

/** A claim held for as long as a call runs; see {@linkcode holdHandler}. */
export interface HandlerHold {
  /**
   * Stops renewing and lets go of the claim, writing the call's receipt in
   * the same atomic write when one is given.
   *
   * @throws What Deno KV throws when the write cannot be made.
   */
  release(receipt?: Receipt): Promise<void>;
}

/** Options for {@linkcode holdHandler}. */
export interface HoldHandlerOptions {
  /** The host's time, in ms. */
  now: () => number;
  /** How long one stretch of the claim lasts, in ms. */
  forMs: number;
  /** How often the claim is renewed while held, in real ms; a third of `forMs` by default. */
  renewEveryMs?: number;
  /** The call's receipt as it stands when it starts, to be written if its process stops. */
  receipt?: Receipt;
  /** This process's lock ({@linkcode ClaimHandlerOptions.lock}). */
  lock?: ProcessLock;
  /** What else is decided and written with the claim ({@linkcode ClaimHandlerOptions.alongside}). */
  alongside?: ClaimCompanion;
}

/**
 * Claims a handler and keeps the claim alive until released, however long
 * the call waits for a free isolate before it runs: a claim that ran out
 * while its call still waited in the queue would let another process in.
 *
 * @returns The hold, or null when a call holds the handler already.
 */
export async function holdHandler(
  kv: Deno.Kv,
  key: Deno.KvKey,
  options: HoldHandlerOptions,
): Promise<HandlerHold | null> {
  let versionstamp = await claimHandler(kv, key, {
    now: options.now(),
    forMs: options.forMs,
    receipt: options.receipt,
    lock: options.lock,
    alongside: options.alongside,
  });
  if (versionstamp === null) return null;
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(async () => {
      if (versionstamp === null) return;
      const current = await kv.get<RunningClaim>(key);
      if (current.versionstamp !== versionstamp || !current.value) return;
      const now = options.now();
      const claim: RunningClaim = { ...current.value, until: now + options.forMs, renewedAt: now };
      const result = await kv.atomic().check(current).set(key, claim).commit();
      if (result.ok) versionstamp = result.versionstamp;
    }).catch(() => {/* the next renewal tries again */});
  }, options.renewEveryMs ?? Math.max(1_000, Math.floor(options.forMs / 3)));
  return {
    async release(receipt?: Receipt) {
      clearInterval(timer);
      await renewing;
      const held = versionstamp;
      versionstamp = null;
      if (held !== null) await releaseHandler(kv, key, held, receipt);
      else if (receipt) await writeReceipt(kv, receipt);
    },
  };
}

/** Options for {@linkcode recordInterruptedCalls}. */
export interface RecordInterruptedCallsOptions {
  /** The host's time, in ms. */
  now: number;
  /** This process's lock, to test the claims of others against theirs. */
  lock?: ProcessLock;
}

/**
 * Turns every claim that no longer counts into a receipt of outcome
 * `interrupted` and removes it: the calls of processes that stopped mid-call.
 * Run when a process that owns the installation starts, so that a `sync call`
 * killed with `kill -9` has its receipt before anyone looks.
 *
 * @param kv The installation's KV.
 * @returns The receipts written, one per call found interrupted.
 */
export async function recordInterruptedCalls(
  kv: Deno.Kv,
  options: RecordInterruptedCallsOptions,
): Promise<Receipt[]> {
  const written: Receipt[] = [];
  for await (const entry of kv.list<RunningClaim>({ prefix: runningClaimsPrefix() })) {
    if (await stillHeld(entry.value, options.now, options.lock)) continue;
    const op = kv.atomic().check(entry).delete(entry.key);
    const receipt = await addInterruptedReceipt(kv, op, entry.value, options.now);
    const result = await op.commit();
    if (result.ok && receipt) written.push(receipt);
  }
  return written;
}

/** Options for {@linkcode runningHandlers}. */
export interface RunningHandlersOptions {
  /** The host's time, in ms. */
  now: number;
}

/**
 * The handlers of a package running now in a project, whichever process
 * runs them: those whose claim is still within its term. A claim left by a
 * process that was killed counts until its term runs out or the next process
 * to own the installation turns it into a receipt, whichever is first.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param id The package id.
 * @param options The host's time.
 * @returns Handler names, in name order; empty when none runs.
 */
export async function runningHandlers(
  kv: Deno.Kv,
  project: string,
  id: string,
  options: RunningHandlersOptions,
): Promise<string[]> {
  const handlers: string[] = [];
  for await (const entry of kv.list<RunningClaim>({ prefix: runningClaimsPrefix(project, id) })) {
    if (entry.value.until > options.now) handlers.push(entry.key[3] as string);
  }
  return handlers;
}
