/**
 * When the task runner's timers fire: the system's timers in `serve`, one a
 * test drives in its place. The runner never reads time from anything but
 * its `now()` and never waits on anything but this.
 *
 * @module
 */

/** Calls a function after a while; answers how to call it off. */
export interface Scheduler {
  /**
   * Calls `run` once, `ms` from now.
   *
   * @param ms How long to wait, in ms.
   * @param run What to call.
   * @returns Calls it off, when it has not run yet.
   */
  after(ms: number, run: () => void): () => void;
}

/**
 * The system's timers, which never keep the process alive by themselves.
 *
 * @returns A scheduler over `setTimeout`.
 */
export function systemScheduler(): Scheduler {
  return {
    after(ms, run) {
      const timer = setTimeout(run, Math.max(0, ms));
      Deno.unrefTimer(timer);
      return () => clearTimeout(timer);
    },
  };
}
