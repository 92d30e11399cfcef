/**
 * Waiting for a condition, not for a time.
 *
 * @module
 */

/**
 * Resolves once `check` answers true, asking again every 20 ms; fails after
 * `ms`, naming `what` was waited for.
 *
 * @param what What is waited for, as the failure says it.
 * @param check Answers whether it holds yet.
 * @param ms How long to wait at most; 30 s by default.
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 30_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
