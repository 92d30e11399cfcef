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

/** Counts calls per handler and project against `rateLimit` calls per `rateWindowMs`. */
export class HandlerRateLimit {
  #kv: Deno.Kv;
  #limits: Pick<HandlerLimits, "rateLimit" | "rateWindowMs">;
  /**
   * Each count as this process last wrote it, with the versionstamp of that
   * write: the next claim checks it instead of reading it again.
   */
  #written = new Map<string, Deno.KvEntry<number[]>>();

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
    let wrote: number[] | undefined;
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
        const recent = ((entry.value ?? []) as number[]).filter((at) => now - at < window);
        if (recent.length >= rateLimit) {
          throw new RateLimitedError(
            `${handler} was called ${timesWord(recent.length)} in the last ${window / 1000} s; ` +
              `the limit is ${rateLimit}. Try again later`,
          );
        }
        recent.push(now);
        // Kept until its newest call leaves the window, and no longer.
        const expireIn = Math.max(1, Math.max(...recent) + window - now);
        op.check(entry).set(key, recent, { expireIn });
        wrote = recent;
      },
    };
  }
}

/** Counts remembered at most; past it they are forgotten and read again. */
const REMEMBERED = 4_096;

function timesWord(count: number): string {
  return count === 1 ? "once" : `${count} times`;
}
