/**
 * One assertion the tests share: a promise rejects with a given error and
 * message.
 *
 * @module
 */
import assert from "node:assert/strict";

/**
 * Asserts that `promise` rejects with the error `expected` names — its class,
 * or its `name` — and a message equal to `message` (a string) or matching it
 * (a RegExp).
 *
 * @returns The error, for further assertions.
 */
export async function rejectsWith(
  promise: Promise<unknown>,
  expected: string | (new (message: string) => Error),
  message: string | RegExp,
): Promise<Error> {
  let caught: Error | undefined;
  await assert.rejects(promise, (error: Error) => {
    if (typeof expected === "string") {
      assert.equal(
        error.name,
        expected,
        `expected ${expected}, got ${error.name}: ${error.message}`,
      );
    } else assert.ok(error instanceof expected, `${error.name}: ${error.message}`);
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    caught = error;
    return true;
  });
  return caught!;
}
