/**
 * Brings a receipt's row on the extension's page into view and gives it the
 * focus, so a person who followed "See its receipt" lands on it and a screen
 * reader reads it; the row is marked for a moment to catch the eye.
 *
 * @module
 */

/** How long a row a person was brought to stays marked. */
const MARKED_MS = 2_000;

/**
 * Scrolls to the receipt's row, focuses it and marks it for a moment.
 *
 * @param id The receipt's id.
 * @returns Whether the row was found.
 */
export function showReceipt(id: string): boolean {
  const row = document.querySelector<HTMLElement>(`[data-receipt-id="${CSS.escape(id)}"]`);
  if (!row) return false;
  const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
  row.scrollIntoView({ block: "center", behavior: still ? "auto" : "smooth" });
  row.focus({ preventScroll: true });
  row.classList.add("receipt-shown");
  setTimeout(() => row.classList.remove("receipt-shown"), MARKED_MS);
  return true;
}
