/**
 * Admission of background steps: one at a time in the process, in the order
 * they asked. A task's steps wait here; a person's calls do not. Private to
 * the applets' folder.
 *
 * @module
 */

/** Admits one background step at a time. */
export class Admission {
  /** The last admitted step; the next waits for it. */
  #last: Promise<unknown> = Promise.resolve();

  /**
   * Runs a step once the one admitted before it ended.
   *
   * @param step The step.
   * @returns What the step answers.
   */
  admit<T>(step: () => Promise<T>): Promise<T> {
    const next = this.#last.then(step);
    this.#last = next.catch(() => {});
    return next;
  }

  /** Settles once the last admitted step ended, however it ended. */
  async drained(): Promise<void> {
    await this.#last.catch(() => {});
  }
}
