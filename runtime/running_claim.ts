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

/** Key of the claim on a handler in a project. */
export function runningClaimKey(project: string, id: string, handler: string): Deno.KvKey {
  return ["running", project, id, handler];
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
