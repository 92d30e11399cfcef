/**
 * Running claims: a handler is not re-entered while it runs in a project,
 * whichever process called it (a `sync call` beside `sync serve`'s clock,
 * say). A call claims its handler in the installation KV before it starts and
 * lets go when it ends; a claim left by a process that stopped mid-call runs
 * out on its own once no call could still be running under it.
 *
 * @module
 */

/** What a running call holds. */
export interface RunningClaim {
  /** When the call started, in ms. */
  startedAt: number;
  /** After this (ms) the claim no longer counts: the call cannot still be running. */
  until: number;
}

/** Options for {@linkcode claimHandler}. */
export interface ClaimHandlerOptions {
  /** The host's time, in ms. */
  now: number;
  /** How long a call can last at most, in ms. */
  forMs: number;
}

/**
 * Claims a handler for one call.
 *
 * @returns The claim's versionstamp, to let go with; null when a call holds it already.
 */
export async function claimHandler(
  kv: Deno.Kv,
  key: Deno.KvKey,
  options: ClaimHandlerOptions,
): Promise<string | null> {
  const current = await kv.get<RunningClaim>(key);
  if (current.value && current.value.until > options.now) return null;
  const claim: RunningClaim = { startedAt: options.now, until: options.now + options.forMs };
  const result = await kv.atomic().check(current).set(key, claim, {
    expireIn: options.forMs,
  }).commit();
  return result.ok ? result.versionstamp : null;
}

/** Lets go of a claim this call holds (the versionstamp {@linkcode claimHandler} answered). */
export async function releaseHandler(
  kv: Deno.Kv,
  key: Deno.KvKey,
  versionstamp: string,
): Promise<void> {
  await kv.atomic().check({ key, versionstamp }).delete(key).commit();
}

/** A claim held for as long as a call runs; see {@linkcode holdHandler}. */
export interface HandlerHold {
  /** Stops renewing and lets go of the claim. */
  release(): Promise<void>;
}

/** Options for {@linkcode holdHandler}. */
export interface HoldHandlerOptions {
  /** The host's time, in ms. */
  now: () => number;
  /** How long one stretch of the claim lasts, in ms. */
  forMs: number;
  /** How often the claim is renewed while held, in real ms; a third of `forMs` by default. */
  renewEveryMs?: number;
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
  let versionstamp = await claimHandler(kv, key, { now: options.now(), forMs: options.forMs });
  if (versionstamp === null) return null;
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(async () => {
      if (versionstamp === null) return;
      const now = options.now();
      const claim: RunningClaim = { startedAt: now, until: now + options.forMs };
      const result = await kv.atomic().check({ key, versionstamp }).set(key, claim, {
        expireIn: options.forMs,
      }).commit();
      if (result.ok) versionstamp = result.versionstamp;
    }).catch(() => {/* the next renewal tries again */});
  }, options.renewEveryMs ?? Math.max(1_000, Math.floor(options.forMs / 3)));
  return {
    async release() {
      clearInterval(timer);
      await renewing;
      if (versionstamp !== null) await releaseHandler(kv, key, versionstamp);
      versionstamp = null;
    },
  };
}
