/**
 * Query parameters, read and checked: a bad value is an
 * `InvalidInputError` (400) that names the parameter, never a 500 or a
 * value passed on unchecked.
 *
 * @module
 */
import type { Context } from "hono";
import { InvalidInputError } from "../errors.ts";

/** Options for {@linkcode integerParam}. */
export interface IntegerParamOptions {
  /** The smallest value allowed. */
  min: number;
  /** The largest value allowed. */
  max: number;
  /** The value when the parameter is not given. */
  fallback: number;
}

/**
 * Reads a whole-number parameter.
 *
 * @param c The request's context.
 * @param name The parameter.
 * @param options The range it must be in, and its value when absent.
 * @throws {InvalidInputError} when it is given but is not a whole number in the range.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export function integerParam(c: Context, name: string, options: IntegerParamOptions): number {
  const text = c.req.query(name);
  if (text === undefined) return options.fallback;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < options.min || value > options.max) {
    throw new InvalidInputError(
      `${name}: expected a whole number from ${options.min} to ${options.max}, ` +
        `got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/**
 * Reads a parameter that must be given and not be empty.
 *
 * @param c The request's context.
 * @param name The parameter.
 * @param what What it names, for the message (such as "the project folder").
 * @throws {InvalidInputError} when it is missing or empty.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export function requiredParam(c: Context, name: string, what: string): string {
  const text = c.req.query(name);
  if (!text) throw new InvalidInputError(`${name}: required: ${what}`);
  return text;
}
