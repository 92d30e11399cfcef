/**
 * How far the person has seen a project's failed background calls, kept in
 * the browser's `localStorage`: the id of the newest receipt a notice told,
 * shown or dismissed. A window that opens asks only for failures newer than
 * it, so a reload does not bring old ones back, while one that happened
 * while no window was open is told.
 *
 * @module
 */

/** The `localStorage` key the ids are kept under, by project. */
const STORAGE_KEY = "sync.seenReceipts";
/** A receipt's id as the server writes it; anything else kept is passed over, not sent. */
const RECEIPT_ID = /^[0-9a-z]{10}-[0-9a-z]{4}-[0-9a-z]{1,32}$/;
/** The most projects kept: the oldest go first. */
const MOST_PROJECTS = 200;

/**
 * The newest receipt seen in a project, or undefined when none was.
 *
 * @param project The project, as the window names it.
 */
export function seenReceipt(project: string): string | undefined {
  return read().get(project);
}

/**
 * Records that the person has seen a project's failures up to this receipt;
 * an older id than the one kept changes nothing (receipt ids sort by time).
 *
 * @param project The project, as the window names it.
 * @param id The receipt's id.
 */
export function seeReceipt(project: string, id: string): void {
  if (!RECEIPT_ID.test(id)) return;
  const seen = read();
  const known = seen.get(project);
  if (known !== undefined && known >= id) return;
  seen.delete(project);
  seen.set(project, id);
  const kept = [...seen].slice(-MOST_PROJECTS);
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(kept));
  } catch {
    // Storage full or refused: a reload tells these failures again.
  }
}

function read(): Map<string, string> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]");
    if (!Array.isArray(parsed)) return new Map();
    return new Map(
      parsed.filter((pair): pair is [string, string] =>
        Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string" &&
        RECEIPT_ID.test(pair[1])
      ),
    );
  } catch {
    return new Map();
  }
}
