/**
 * The rate limit per handler: how often one handler may be called in one
 * project within a window. The count is kept in the installation KV, so it
 * is the installation's and not one process's: a serve counts the calls a
 * person sends it from the CLI, and with no serve each command that owns the
 * installation in turn adds to the same count. Only the owner counts, so the
 * count is read and written by one process at a time.
 *
 * @module
 */
import { RateLimitedError } from "../errors.ts";
import type { HandlerLimits } from "../limits.ts";
import { handlerRateKey } from "./keys.ts";
import type { ClaimCompanion } from "./running_claim.ts";

/**
 * A handler's count as stored: the times of its recent calls (ms), oldest
 * first; a pair `[at, n]` stands for `n` calls, the latest of them at `at`.
 */
type RateCount = (number | [number, number])[];

/**
 * Entries a count keeps at most: limits up to this are counted exactly; above
 * it, the oldest calls are kept in pairs, each counted as made when the latest
 * of them was, so that a count never lets a call through early and never
 * grows with the limit.
 */
const KEPT_ENTRIES = 64;

/**
 * Adds a call at `now` to the calls of `stored` still within `window`, or
 * refuses it; the count to store, or the number of calls that refuse it.
 */
function countCall(
  stored: RateCount,
  now: number,
  window: number,
  limit: number,
): { count: RateCount } | { refusedBy: number } {
  const recent: RateCount = [];
  let calls = 0;
  for (const entry of stored) {
    if (now - timeOf(entry) < window) {
      recent.push(entry);
      calls += callsIn(entry);
    }
  }
  if (calls >= limit) return { refusedBy: calls };
  recent.push(now);
  calls += 1;
  // Calls older than the latest `limit` can refuse nothing any more.
  let first = 0;
  while (first < recent.length - 1 && calls - callsIn(recent[first]) >= limit) {
    calls -= callsIn(recent[first++]);
  }
  const count = first > 0 ? recent.slice(first) : recent;
  if (count.length <= KEPT_ENTRIES) return { count };
  // The oldest become one pair, counted as made when the latest of them was.
  const merged = count.length - KEPT_ENTRIES + 1;
  let pair = 0;
  for (let i = 0; i < merged; i++) pair += callsIn(count[i]);
  return { count: [[timeOf(count[merged - 1]), pair], ...count.slice(merged)] };
}

function timeOf(entry: number | [number, number]): number {
  return typeof entry === "number" ? entry : entry[0];
}

function callsIn(entry: number | [number, number]): number {
  return typeof entry === "number" ? 1 : entry[1];
}

/** Counts calls per handler and project against `rateLimit` calls per `rateWindowMs`. */
export class HandlerRateLimit {
  #kv: Deno.Kv;
  #limits: Pick<HandlerLimits, "rateLimit" | "rateWindowMs">;
  /**
   * Each count as this process last wrote it, with the versionstamp of that
   * write: the next claim checks it instead of reading it again.
   */
  #written = new Map<string, Deno.KvEntry<RateCount>>();

  /**
   * The count kept in an installation.
   *
   * @param kv The installation's KV.
   * @param limits The limit and the window it counts over.
   */
  constructor(kv: Deno.Kv, limits: Pick<HandlerLimits, "rateLimit" | "rateWindowMs">) {
    this.#kv = kv;
    this.#limits = limits;
  }

  /**
   * Counts one call of `handler` of package `id` in `project`, made at `now` (ms).
   *
   * @throws {RateLimitedError} when the handler was called `rateLimit` times within the window;
   * that call is not counted.
   */
  async count(project: string, id: string, handler: string, now: number): Promise<void> {
    const counting = this.alongside(project, id, handler, now);
    for (;;) {
      const entries = await this.#kv.getMany<unknown[]>(counting.keys);
      const op = this.#kv.atomic();
      counting.add(op, entries);
      if ((await op.commit()).ok) return;
    }
  }

  /**
   * Counts one call as part of another atomic write (the call's claim): its
   * key to read, and the check and write it adds once read. The count is
   * written only if that write is.
   *
   * @param project The project's resolved folder.
   * @param id The package id.
   * @param handler The handler's name.
   * @param now When the call is made, in ms.
   * @returns What the claim reads and adds; `add` throws {@linkcode RateLimitedError}
   *   when the handler was called `rateLimit` times within the window.
   */
  alongside(project: string, id: string, handler: string, now: number): ClaimCompanion {
    const key = handlerRateKey(project, id, handler);
    const window = this.#limits.rateWindowMs;
    const rateLimit = this.#limits.rateLimit;
    const written = this.#written;
    const name = JSON.stringify(key);
    let wrote: RateCount | undefined;
    return {
      keys: [key],
      remembered: () => {
        const entry = written.get(name);
        return entry ? [entry] : null;
      },
      written(versionstamp) {
        if (!wrote) return;
        written.delete(name);
        if (written.size >= REMEMBERED) written.clear();
        written.set(name, { key, value: wrote, versionstamp });
      },
      add(op, [entry]) {
        const counted = countCall((entry.value ?? []) as RateCount, now, window, rateLimit);
        if ("refusedBy" in counted) {
          throw new RateLimitedError(
            `${handler} was called ${timesWord(counted.refusedBy)} in the last ` +
              `${window / 1000} s; the limit is ${rateLimit}. Try again later`,
          );
        }
        // Kept until its newest call (this one) leaves the window, and no longer.
        op.check(entry).set(key, counted.count, { expireIn: Math.max(1, window) });
        wrote = counted.count;
      },
    };
  }
}

/** Counts remembered at most; past it they are forgotten and read again. */
const REMEMBERED = 4_096;

function timesWord(count: number): string {
  return count === 1 ? "once" : `${count} times`;
}
