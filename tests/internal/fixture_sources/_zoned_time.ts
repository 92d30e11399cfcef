/**
 * Wall-clock times in a named zone turned into instants, with the platform's
 * own time zone data (Intl), so the ground truth does not share code with the
 * VTIMEZONE blocks it checks a parser against.
 *
 * @module
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function offsetAt(instant: number, zone: string): number {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(zone, format);
  }
  const parts = new Map(format.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
  const asUtc = Date.UTC(
    Number(parts.get("year")),
    Number(parts.get("month")) - 1,
    Number(parts.get("day")),
    Number(parts.get("hour")),
    Number(parts.get("minute")),
    Number(parts.get("second")),
  );
  return asUtc - instant;
}

/**
 * The instant (ms since the epoch) of a wall-clock time `YYYY-MM-DDTHH:MM`
 * in `zone`; `UTC`, `floating` and `date` (all-day) read it as UTC.
 */
export function zonedToUtc(local: string, zone: string): number {
  const wall = Date.parse(local.length === 10 ? `${local}T00:00:00Z` : `${local}:00Z`.slice(0, 20));
  if (zone === "UTC" || zone === "floating" || zone === "date") return wall;
  const guess = wall - offsetAt(wall, zone);
  return wall - offsetAt(guess, zone);
}
