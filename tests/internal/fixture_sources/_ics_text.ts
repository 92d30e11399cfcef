/**
 * iCalendar text as RFC 5545 writes it: escaped TEXT values, lines folded at
 * 75 octets (never inside a UTF-8 character), CRLF endings, and the
 * VTIMEZONE blocks of the zones the fixtures use, with their DST rules.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Escapes a TEXT value: backslash, semicolon, comma and newline. */
export function escapeText(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll(";", "\\;").replaceAll(",", "\\,")
    .replaceAll("\n", "\\n");
}

/** Folds one content line at 75 octets, continuation lines starting with a space. */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = "";
  let octets = 0;
  for (const char of line) {
    const size = encoder.encode(char).length;
    const limit = out.length === 0 ? 75 : 74;
    if (octets + size > limit) {
      out.push(current);
      current = "";
      octets = 0;
    }
    current += char;
    octets += size;
  }
  out.push(current);
  return out.join("\r\n ");
}

/** Joins content lines into a CRLF iCalendar text, folding each. */
export function icsText(lines: string[]): string {
  return lines.map(foldLine).join("\r\n") + "\r\n";
}

/** The time zones fixture events are written in. */
export type FixtureZone = "Europe/Berlin" | "America/New_York";

/** VTIMEZONE blocks for the fixture zones, with the DST rules in force since 2007. */
export const VTIMEZONES = new Map<FixtureZone, string[]>([
  ["Europe/Berlin", [
    "BEGIN:VTIMEZONE",
    "TZID:Europe/Berlin",
    "BEGIN:DAYLIGHT",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "TZNAME:CEST",
    "DTSTART:19700329T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
    "END:DAYLIGHT",
    "BEGIN:STANDARD",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "TZNAME:CET",
    "DTSTART:19701025T030000",
    "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    "END:STANDARD",
    "END:VTIMEZONE",
  ]],
  ["America/New_York", [
    "BEGIN:VTIMEZONE",
    "TZID:America/New_York",
    "BEGIN:DAYLIGHT",
    "TZOFFSETFROM:-0500",
    "TZOFFSETTO:-0400",
    "TZNAME:EDT",
    "DTSTART:20070311T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU",
    "END:DAYLIGHT",
    "BEGIN:STANDARD",
    "TZOFFSETFROM:-0400",
    "TZOFFSETTO:-0500",
    "TZNAME:EST",
    "DTSTART:20071104T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU",
    "END:STANDARD",
    "END:VTIMEZONE",
  ]],
]);
