/**
 * What a package id is: a lowercase letter, then 1 to 39 lowercase letters,
 * digits or "-", and not a name every JavaScript object inherits
 * (`constructor`). Anything else names no package, so it is refused where it
 * enters (a call, a listing of receipts, a project's list of its extensions)
 * rather than looked up: the installation keys what it keeps of a package by
 * its id, and libraries Sync hands ids to (the MCP SDK names a package's
 * prompt by it) may look names up in plain objects.
 *
 * @module
 */

/** The form of a package id; it is also the prefix of the package's kinds and handler names. */
export const PACKAGE_ID_PATTERN: RegExp = /^[a-z][a-z0-9-]{1,39}$/;

/**
 * Whether `name` is one every object inherits (`constructor`, `toString`,
 * `__proto__`, …), which a lookup in a plain object would find where nobody
 * put it.
 *
 * @param name A name.
 */
export function inheritedName(name: string): boolean {
  return Object.hasOwn(Object.prototype, name);
}

/**
 * The ids Sync itself writes kinds under, with what those records are. A
 * package owns every kind under its own id, so a package with one of these
 * ids would read and overwrite what Sync keeps there.
 */
const SYNC_OWN_IDS: ReadonlyMap<string, string> = new Map([
  ["chat", "its records are the conversations Chat keeps (chat.conversation)"],
]);

/**
 * Why `id` is Sync's own and no package's, or null when it is not.
 *
 * @param id A package id.
 * @returns Such as "the id chat is Sync's own: its records are the conversations Chat keeps …".
 */
export function syncOwnIdProblem(id: string): string | null {
  const what = SYNC_OWN_IDS.get(id);
  return what === undefined ? null : `the id ${id} is Sync's own: ${what}; choose another id`;
}

/**
 * Whether `id` could be a package's id.
 *
 * @param id Anything.
 */
export function isPackageId(id: unknown): id is string {
  return typeof id === "string" && PACKAGE_ID_PATTERN.test(id) && !inheritedName(id);
}

/**
 * Why `id` is not a package id, in words, quoting at most its first 60 characters.
 *
 * @param id What was given as a package id.
 * @returns `"…" is not a package id: …`.
 */
export function notAPackageId(id: string): string {
  const shown = JSON.stringify(id.length > 60 ? `${id.slice(0, 57)}...` : id);
  if (inheritedName(id)) {
    return `${shown} is not a package id: every JavaScript object has a property of that name`;
  }
  return `${shown} is not a package id: an id is a lowercase letter, then 1 to 39 lowercase ` +
    `letters, digits or "-"`;
}
