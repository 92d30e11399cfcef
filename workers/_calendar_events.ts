/**
 * One iCalendar file read with ical.js: its events' occurrences that overlap
 * a window, recurrences expanded in the time zones the file's VTIMEZONEs
 * define, EXDATEs left out, RECURRENCE-ID exceptions put in place of the
 * occurrences they change (a cancelled one listed as cancelled).
 *
 * @module
 */
import ICAL from "ical.js";
import type {
  Address,
  CalendarWindow,
  ParseBounds,
  ParsedEvent,
} from "../runtime/parsers/protocol.ts";

type Component = InstanceType<typeof ICAL.Component>;
type IcalEvent = InstanceType<typeof ICAL.Event>;
type IcalTime = InstanceType<typeof ICAL.Time>;

const DAY_MS = 86_400_000;

/** A change of a time zone, as ical.js keeps it. */
type ZoneChange = Record<string, unknown>;

/** What ical.js's Timezone does to a VTIMEZONE's STANDARD or DAYLIGHT rule (2.2.1). */
interface ZoneExpansion {
  _expandComponent(component: Component, year: number, changes: ZoneChange[]): unknown;
}

/**
 * Changes of time zones the file being parsed may still have expanded;
 * null while no file is.
 */
let zoneChangesLeft: { left: number; max: number } | null = null;

/**
 * ical.js expands a time zone's rule from its DTSTART up to five years past
 * now, with no bound of its own: a rule that repeats every second since
 * 1970 would fill memory, and a worker stopped at its deadline goes on
 * running what it is in (Deno does not interrupt it). Each rule's changes
 * are gathered apart and counted against the file's allowance as they come.
 */
const zones = ICAL.Timezone.prototype as unknown as ZoneExpansion;
const expandZoneRule = zones._expandComponent;
zones._expandComponent = function (component, year, changes) {
  const counted = new CountedChanges();
  const result = expandZoneRule.call(this, component, year, counted);
  for (const change of counted) changes.push(change);
  return result;
};

/** An array whose every push is counted against {@linkcode zoneChangesLeft}. */
class CountedChanges extends Array<ZoneChange> {
  override push(...items: ZoneChange[]): number {
    if (zoneChangesLeft) {
      zoneChangesLeft.left -= items.length;
      if (zoneChangesLeft.left < 0) {
        throw new Error(
          `its time zones change more than ${zoneChangesLeft.max} times; it is not expanded`,
        );
      }
    }
    return super.push(...items);
  }
}
/**
 * How far past the window's end a series is stepped: an occurrence that
 * starts later may have been moved (RECURRENCE-ID) into the window.
 */
const MOVED_REACH_MS = 31 * DAY_MS;

/**
 * The occurrences of every event in `text` that overlap the window (start
 * before its end, end after its start; floating and all-day times read as
 * UTC wall clock).
 *
 * @param text The file's text: one VCALENDAR or several.
 * @param window Where to look.
 * @param bounds What the answer is held to.
 * @throws {Error} in words when the file is no calendar ical.js can read, or
 *   holds more occurrences in the window than are answered.
 */
export function calendarEvents(
  text: string,
  window: CalendarWindow,
  bounds: ParseBounds,
): ParsedEvent[] {
  zoneChangesLeft = { left: bounds.maxRecurrenceSteps, max: bounds.maxRecurrenceSteps };
  try {
    return eventsOf(text, window, bounds);
  } finally {
    zoneChangesLeft = null;
  }
}

function eventsOf(text: string, window: CalendarWindow, bounds: ParseBounds): ParsedEvent[] {
  const from = Date.parse(window.from);
  const to = from + window.days * DAY_MS;
  const parsed = ICAL.parse(text) as unknown[];
  // One VCALENDAR parses to one component; several to a list of them.
  const roots = Array.isArray(parsed[0]) ? parsed as unknown[][] : [parsed];
  const out: ParsedEvent[] = [];
  const collect: Collect = { from, to, bounds, out, chars: 0 };
  for (const root of roots) {
    const calendar = new ICAL.Component(root as unknown[]);
    const vevents = calendar.getAllSubcomponents("vevent");
    const exceptions = new Map<string, Component[]>();
    const masters: Component[] = [];
    for (const vevent of vevents) {
      const uid = String(vevent.getFirstPropertyValue("uid") ?? "");
      if (vevent.hasProperty("recurrence-id")) {
        exceptions.set(uid, [...exceptions.get(uid) ?? [], vevent]);
      } else masters.push(vevent);
    }
    const mastered = new Set<string>();
    for (const master of masters) {
      const uid = String(master.getFirstPropertyValue("uid") ?? "");
      mastered.add(uid);
      // Exceptions are related by UID: ical.js would relate every one in the calendar.
      const event = new ICAL.Event(master, { exceptions: exceptions.get(uid) ?? [] });
      expand(event, collect);
    }
    // An exception whose series is not in the file stands alone.
    for (const [uid, list] of exceptions) {
      if (mastered.has(uid)) continue;
      for (const vevent of list) {
        const event = new ICAL.Event(vevent, { exceptions: [] });
        addOccurrence(
          event,
          event.startDate,
          endOf(event, event.startDate),
          event.recurrenceId,
          collect,
        );
      }
    }
  }
  return out;
}

interface Collect {
  from: number;
  to: number;
  bounds: ParseBounds;
  out: ParsedEvent[];
  /** Characters of JSON `out` comes to so far. */
  chars: number;
}

function expand(event: IcalEvent, collect: Collect): void {
  if (!event.startDate) return;
  const { to, bounds } = collect;
  if (!event.isRecurring()) {
    addOccurrence(event, event.startDate, endOf(event, event.startDate), null, collect);
    return;
  }
  const iterator = event.iterator();
  let steps = 0;
  for (let next = iterator.next(); next; next = iterator.next()) {
    if (++steps > bounds.maxRecurrenceSteps) {
      throw new Error(
        `the event ${event.uid} repeats more than ${bounds.maxRecurrenceSteps} times ` +
          `before the window ends; it is not expanded`,
      );
    }
    if (msOf(next) >= to + MOVED_REACH_MS) break;
    const details = event.getOccurrenceDetails(next);
    addOccurrence(details.item, details.startDate, details.endDate, next, collect);
  }
}

/** The end of an occurrence starting at `start`: DTEND, or DTSTART plus DURATION (a day for a date). */
function endOf(event: IcalEvent, start: IcalTime): IcalTime {
  if (event.component.hasProperty("dtend") || event.component.hasProperty("duration")) {
    return event.endDate;
  }
  const end = start.clone();
  if (start.isDate) end.day += 1;
  return end;
}

function addOccurrence(
  item: IcalEvent,
  start: IcalTime,
  end: IcalTime,
  recurrenceId: IcalTime | null,
  collect: Collect,
): void {
  const { from, to, bounds, out } = collect;
  const startMs = msOf(start);
  const endMs = Math.max(msOf(end), startMs);
  // An instant event (no length) is in the window when it starts in it.
  const inWindow = endMs === startMs
    ? startMs >= from && startMs < to
    : startMs < to && endMs > from;
  if (!inWindow) return;
  if (out.length >= bounds.maxOccurrences) {
    throw new Error(
      `the file holds more than ${bounds.maxOccurrences} occurrences in the window; ` +
        `ask for a shorter window`,
    );
  }
  const component = item.component;
  const text = (name: string) =>
    cut(String(component.getFirstPropertyValue(name) ?? ""), bounds.maxEventTextChars);
  const field = (value: unknown) => cut(String(value ?? ""), bounds.maxFieldChars);
  const zone = start.zone;
  const tzid = !start.isDate && zone && zone !== ICAL.Timezone.utcTimezone &&
      zone !== ICAL.Timezone.localTimezone
    ? zone.tzid
    : component.getFirstProperty("dtstart")?.getParameter("tzid") ?? null;
  const occurrence: ParsedEvent = {
    uid: field(component.getFirstPropertyValue("uid")),
    recurrenceId: recurrenceId ? isoOf(recurrenceId) : null,
    summary: text("summary"),
    description: text("description"),
    location: text("location"),
    start: isoOf(start),
    end: isoOf(end),
    allDay: start.isDate,
    timeZone: start.isDate || typeof tzid !== "string" ? null : field(tzid),
    status: statusOf(component.getFirstPropertyValue("status")),
    organizer: organizerOf(component, field),
    attendees: component.getAllProperties("attendee").slice(0, bounds.maxAttendees).map((
      attendee,
    ) => ({
      name: field(attendee.getParameter("cn")),
      address: field(mailAddress(attendee.getFirstValue())),
      partstat: field(attendee.getParameter("partstat") ?? "NEEDS-ACTION").toUpperCase(),
    })),
  };
  // Every occurrence repeats its event's fields: counted as they are added,
  // so a heavy event over a long window is refused before it is built whole.
  collect.chars += JSON.stringify(occurrence).length + 1;
  if (collect.chars > bounds.maxResultChars) {
    throw new Error(
      `its occurrences in the window come to more than ${bounds.maxResultChars} characters; ` +
        `ask for a shorter window`,
    );
  }
  out.push(occurrence);
}

/** Milliseconds since the epoch; floating and date values read as UTC wall clock. */
function msOf(time: IcalTime): number {
  return time.toUnixTime() * 1000;
}

/** ISO 8601 with the offset the time has in its zone; none for floating times, a date for dates. */
function isoOf(time: IcalTime): string {
  const wall = time.toString();
  if (time.isDate || wall.endsWith("Z") || time.zone === ICAL.Timezone.localTimezone) {
    return wall;
  }
  const zone = time.zone;
  if (!zone || zone.tzid === "floating") return wall;
  const offset = time.utcOffset();
  const sign = offset < 0 ? "-" : "+";
  const minutes = Math.abs(offset) / 60;
  const two = (n: number) => String(Math.floor(n)).padStart(2, "0");
  return `${wall}${sign}${two(minutes / 60)}:${two(minutes % 60)}`;
}

function statusOf(value: unknown): ParsedEvent["status"] {
  const status = String(value ?? "").toUpperCase();
  if (status === "CANCELLED") return "cancelled";
  if (status === "TENTATIVE") return "tentative";
  return "confirmed";
}

function organizerOf(component: Component, field: (value: unknown) => string): Address | null {
  const organizer = component.getFirstProperty("organizer");
  if (!organizer) return null;
  return {
    name: field(organizer.getParameter("cn")),
    address: field(mailAddress(organizer.getFirstValue())),
  };
}

/** `mailto:ada@example.org` → `ada@example.org`; any other URI as it is. */
function mailAddress(value: unknown): string {
  const text = String(value ?? "");
  return text.toLowerCase().startsWith("mailto:") ? text.slice("mailto:".length) : text;
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}
