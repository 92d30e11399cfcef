// The last part of a folder's name that marks junk or deleted mail, as mail clients name them.
const JUNK = new Set([
  "spam",
  "junk",
  "junk e-mail",
  "junk email",
  "bulk mail",
  "trash",
  "bin",
  "deleted",
  "deleted messages",
  "deleted items",
]);

/**
 * Whether `folder` is a Spam or Trash folder: its last part (after `.` or `/`), whatever its
 * case, is one of the names clients give them (`Spam`, `Junk`, `Trash`, `Deleted Messages`,
 * `[Gmail].Spam`, …). Promotions and other folders are not.
 */
export function junkFolder(folder: string): boolean {
  const last = folder.split(/[./]/).pop() ?? folder;
  return JUNK.has(last.trim().toLowerCase());
}
