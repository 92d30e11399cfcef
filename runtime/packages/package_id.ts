/**
 * What a package id is: a lowercase letter, then 1 to 39 lowercase letters,
 * digits or "-". Anything else names no package, so it is refused where it
 * enters (a call, a listing of receipts) rather than looked up: the
 * installation keys what it keeps of a package by its id.
 *
 * @module
 */

/** A package id; it is also the prefix of the package's kinds and handler names. */
export const PACKAGE_ID_PATTERN: RegExp = /^[a-z][a-z0-9-]{1,39}$/;

/**
 * Whether `id` could be a package's id.
 *
 * @param id Anything.
 */
export function isPackageId(id: unknown): id is string {
  return typeof id === "string" && PACKAGE_ID_PATTERN.test(id);
}

/**
 * Why `id` is not a package id, in words, quoting at most its first 60 characters.
 *
 * @param id What was given as a package id.
 * @returns `"…" is not a package id: …`.
 */
export function notAPackageId(id: string): string {
  const shown = JSON.stringify(id.length > 60 ? `${id.slice(0, 57)}...` : id);
  return `${shown} is not a package id: an id is a lowercase letter, then 1 to 39 lowercase ` +
    `letters, digits or "-"`;
}
