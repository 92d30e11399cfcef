/**
 * The argument of host functions that take one record or work key: the key
 * itself, or `{ key }`.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";

/**
 * The key a handler passed to `fn`.
 *
 * @throws {InvalidInputError} when there is no string key.
 */
export function keyArg(fn: string, args: unknown): string {
  const key = typeof args === "string" ? args : (args as { key?: unknown })?.key;
  if (typeof key !== "string") {
    throw new InvalidInputError(`${fn}() takes a record key like "kind/name"`);
  }
  return key;
}
