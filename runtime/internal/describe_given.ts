/**
 * What a refusal says was given instead of what was wanted, in words: an
 * empty string printed as it is would say nothing at all.
 *
 * @module
 */

/**
 * Describes a value given where a non-empty string was wanted.
 *
 * @param value What was given.
 * @returns "an empty string", "undefined", "null", "number 3", "an array" or "a value of type …".
 */
export function describeGiven(value: unknown): string {
  if (value === "") return "an empty string";
  if (value === null || value === undefined) return String(value);
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${value}`;
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  return `a value of type ${typeof value}`;
}
