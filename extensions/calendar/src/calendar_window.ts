/** Days of occurrences the Calendar sync keeps, from a day before now. */
export const WINDOW_DAYS = 60;

/**
 * The window occurrences are expanded in at `now` (ms since the epoch): from a day before now,
 * so an event that began yesterday and still runs is found, for {@link WINDOW_DAYS} days. What
 * has ended by `now` is then left out by its end, not by the window.
 */
export function calendarWindow(now: number): { from: string; days: number } {
  return { from: new Date(now - 86_400_000).toISOString(), days: WINDOW_DAYS };
}
