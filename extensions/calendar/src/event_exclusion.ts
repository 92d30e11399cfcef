import type { ParsedEvent } from "./account_types.ts";

/** Why an occurrence is left out. */
export type EventExclusion = "cancelled" | "declined" | "ended";

/**
 * Why `event` is left out, or null when it is kept: it was cancelled, the calendar's owner
 * (any of `owner`'s addresses, compared without case) declined it as an attendee, or it has
 * ended (its end is at or before `now`, ms since the epoch).
 */
export function eventExclusion(
  event: ParsedEvent,
  owner: string[],
  now: number,
): EventExclusion | null {
  if (event.status === "cancelled") return "cancelled";
  const mine = new Set(owner.map((address) => address.toLowerCase()));
  const declined = event.attendees.some((attendee) =>
    mine.has(attendee.address.toLowerCase()) && attendee.partstat.toUpperCase() === "DECLINED"
  );
  if (declined) return "declined";
  const end = Date.parse(event.end);
  if (Number.isFinite(end) && end <= now) return "ended";
  return null;
}
