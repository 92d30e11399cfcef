/**
 * Expands fixture events into the instances a reader should find in a
 * window, computed apart from any iCalendar library: recurrence rules walked
 * day by day on the wall clock, EXDATEs dropped, RECURRENCE-ID overrides
 * applied, wall times turned into instants with the platform's zone data.
 *
 * @module
 */

import type { EventSpec, PartStat } from "./_calendar_plan.ts";
import { zonedToUtc } from "./_zoned_time.ts";

/** Why an instance a reader finds is left out. */
export type Exclusion = "cancelled" | "declined" | "ended";

/** One instance of an event. */
export interface InstanceTruth {
  uid: string;
  /** The file it is in, relative to the folder (or the exported file's name). */
  file: string;
  summary: string;
  /** The original start of a recurring instance, in the form of `start`; null for single events. */
  recurrenceId: string | null;
  /**
   * `2027-03-16T10:00:00Z` (UTC) for zoned and UTC times; `2027-03-20T09:00:00`
   * (no zone) for floating times; `2027-03-17` for all-day events.
   */
  start: string;
  end: string;
  allDay: boolean;
  floating: boolean;
  /** The owner's PARTSTAT, null when the owner is not an attendee. */
  ownerAnswer: PartStat | null;
  excluded: Exclusion | null;
}

/** The window instances are expanded in. */
export interface WindowSpec {
  /** UTC, `YYYY-MM-DDTHH:MM:SSZ`: "now" for the reader. */
  start: string;
  days: number;
  /** Instances that ended up to this many days before the start are listed as ended. */
  lookbackDays: number;
}

const DAY = 86_400_000;
const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

function dayOf(local: string): number {
  return Date.parse(`${local.slice(0, 10)}T00:00:00Z`);
}

function dateText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The wall-clock starts of every instance, EXDATEs included, in order. */
function wallStarts(event: EventSpec, limit: number): string[] {
  const rule = event.rule;
  if (!rule) return [event.start];
  const time = event.start.slice(10);
  const first = dayOf(event.start);
  const until = rule.until ? Date.parse(`${rule.until}:00Z`) : Infinity;
  const out: string[] = [];
  const days = rule.byday ?? [WEEKDAYS[new Date(first).getUTCDay()]];
  for (let step = 0; out.length < (rule.count ?? Infinity); step++) {
    let day: number;
    if (rule.freq === "MONTHLY") {
      const d = new Date(first);
      day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + step, d.getUTCDate());
    } else {
      day = first + step * DAY;
      if (rule.freq === "WEEKLY" && !days.includes(WEEKDAYS[new Date(day).getUTCDay()])) continue;
    }
    if (day > limit) break;
    const wall = dateText(day) + time;
    if (zonedToUtc(wall, event.zone) > until) break;
    out.push(wall);
  }
  return out;
}

function shown(ms: number, event: EventSpec): string {
  if (event.zone === "date") return dateText(ms);
  const iso = new Date(ms).toISOString().slice(0, 19);
  return event.zone === "floating" ? iso : `${iso}Z`;
}

/**
 * The instances of `event` that overlap the window (start before its end,
 * end after its start; floating and all-day times read as UTC wall clock) or
 * ended within the lookback before it, each with why it is excluded if it is.
 */
export function expandEvent(event: EventSpec, file: string, window: WindowSpec): InstanceTruth[] {
  const windowStart = Date.parse(window.start);
  const windowEnd = windowStart + window.days * DAY;
  const out: InstanceTruth[] = [];
  for (const wall of wallStarts(event, windowEnd + 31 * DAY)) {
    if (event.exdates?.includes(wall)) continue;
    const override = event.overrides?.find((o) => o.recurrenceId === wall);
    const startMs = zonedToUtc(override?.start ?? wall, event.zone);
    const endMs = startMs + event.length * (event.zone === "date" ? DAY : 60_000);
    const inWindow = startMs < windowEnd && endMs > windowStart;
    const ended = endMs <= windowStart && endMs > windowStart - window.lookbackDays * DAY;
    if (!inWindow && !ended) continue;
    const status = override?.status ?? event.status;
    const answer = override?.ownerAnswer ?? event.ownerAnswer ?? null;
    out.push({
      uid: event.uid,
      file,
      summary: event.summary,
      recurrenceId: event.rule ? shown(zonedToUtc(wall, event.zone), event) : null,
      start: shown(startMs, event),
      end: shown(endMs, event),
      allDay: event.zone === "date",
      floating: event.zone === "floating",
      ownerAnswer: answer,
      excluded: status === "CANCELLED"
        ? "cancelled"
        : answer === "DECLINED"
        ? "declined"
        : ended
        ? "ended"
        : null,
    });
  }
  return out;
}
