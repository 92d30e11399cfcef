/**
 * Which window notices the person dismissed, kept in the browser's
 * `localStorage` so that a reload does not bring them back. A notice's id
 * names the failure it tells (a receipt, a session's change), so a new
 * failure is a new id and is shown again.
 *
 * @module
 */
import { signal } from "@preact/signals";

/** The `localStorage` key the dismissed ids are kept under. */
const STORAGE_KEY = "sync.dismissedNotices";
/** The most ids kept: the oldest go first; a failure that old is not news. */
const MOST_KEPT = 500;

/** The ids of the notices dismissed, oldest first. */
export const dismissedNotices = signal<ReadonlySet<string>>(new Set(read()));

/** Dismisses a notice, for good: a reload does not bring it back. */
export function dismissNotice(id: string): void {
  const ids = [...dismissedNotices.value].filter((known) => known !== id);
  ids.push(id);
  const kept = ids.slice(-MOST_KEPT);
  dismissedNotices.value = new Set(kept);
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(kept));
  } catch {
    // Storage full or refused: the notice stays dismissed while the window is open.
  }
}

function read(): string[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]");
    return Array.isArray(parsed) ? parsed.filter((id) => typeof id === "string") : [];
  } catch {
    return [];
  }
}
