/**
 * When the runner looks for due runs: once at once when woken, then at the
 * soonest planned run (at least every `APPLET_LIMITS.lookEveryMs`), never
 * two looks at a time; a wake during a look brings another after it.
 * Private to the applets' folder.
 *
 * @module
 */
import { describeError } from "../internal/describe_error.ts";
import { APPLET_LIMITS } from "../limits.ts";
import type { Scheduler } from "./scheduler.ts";

/** Options for {@linkcode LookLoop}. */
export interface LookLoopOptions {
  /** The runner's time, in ms. */
  now: () => number;
  /** Its timers. */
  scheduler: Scheduler;
  /** Where a failed look is said. */
  log: (line: string) => void;
  /**
   * One look: answers when the soonest next run is, in ms (`Infinity` when
   * none is planned), or null when it stopped short and plans nothing.
   */
  look: () => Promise<number | null>;
}

/** Looks for due runs, one look at a time, while on. */
export class LookLoop {
  #options: LookLoopOptions;
  #on = false;
  #cancel: (() => void) | undefined;
  #looking: Promise<void> | undefined;
  #again = false;

  /**
   * Off until {@linkcode LookLoop.start}; a {@linkcode LookLoop.tick} still looks.
   *
   * @param options Time, timers, log, and the look.
   */
  constructor(options: LookLoopOptions) {
    this.#options = options;
  }

  /** Turns on and looks soon. */
  start(): void {
    this.#on = true;
    this.wake();
  }

  /** Turns off: no look is planned any more; the one in progress goes on. */
  halt(): void {
    this.#on = false;
    this.#cancel?.();
    this.#cancel = undefined;
  }

  /** Settles once the look in progress, if any, ended. */
  async settled(): Promise<void> {
    await this.#looking;
  }

  /** Looks now and answers once it ended; a look asked for while one runs waits for it. */
  async tick(): Promise<void> {
    while (this.#looking) await this.#looking;
    const look = this.#lookOnce();
    this.#looking = look;
    try {
      await look;
    } finally {
      this.#looking = undefined;
    }
  }

  /** Looks soon, once, whatever was planned. */
  wake(): void {
    if (!this.#on) return;
    this.#cancel?.();
    this.#cancel = this.#options.scheduler.after(0, () => this.#fire());
  }

  #fire(): void {
    this.#cancel = undefined;
    if (!this.#on) return;
    if (this.#looking) {
      this.#again = true;
      return;
    }
    this.tick()
      .catch((error) => this.#options.log(`[tasks] a look failed: ${describeError(error).message}`))
      .finally(() => {
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  /** One look, then the next one planned. */
  async #lookOnce(): Promise<void> {
    const soonest = await this.#options.look();
    if (soonest === null || !this.#on) return;
    const { now, scheduler } = this.#options;
    const wait = Math.min(Math.max(0, soonest - now()), APPLET_LIMITS.lookEveryMs);
    this.#cancel?.();
    this.#cancel = scheduler.after(wait, () => this.#fire());
  }
}
