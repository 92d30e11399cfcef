/**
 * The rate limit per handler: how often one handler may be called in one
 * project within a window. Counted in the process that runs the calls (the
 * installation's owner), so it needs no shared state.
 *
 * @module
 */
import { RateLimitedError } from "../errors.ts";
import type { HandlerLimits } from "../limits.ts";

/** Counts calls per handler and project against `rateLimit` calls per `rateWindowMs`. */
export class HandlerRateLimit {
  #limits: Pick<HandlerLimits, "rateLimit" | "rateWindowMs">;
  #calls = new Map<string, number[]>();

  /**
   * A count with no calls yet.
   *
   * @param limits The limit and the window it counts over.
   */
  constructor(limits: Pick<HandlerLimits, "rateLimit" | "rateWindowMs">) {
    this.#limits = limits;
  }

  /**
   * Counts one call of `handler` of package `id` in `project`, made at `now` (ms).
   *
   * @throws {RateLimitedError} when the handler was called `rateLimit` times within the window;
   * that call is not counted.
   */
  count(project: string, id: string, handler: string, now: number): void {
    const running = `${project}\0${id}\0${handler}`;
    const window = this.#limits.rateWindowMs;
    const recent = (this.#calls.get(running) ?? []).filter((at) => now - at < window);
    if (recent.length >= this.#limits.rateLimit) {
      throw new RateLimitedError(
        `${handler} was called ${recent.length} times in the last ${window / 1000} s; ` +
          `the limit is ${this.#limits.rateLimit}. Try again later`,
      );
    }
    recent.push(now);
    this.#calls.set(running, recent);
  }
}
