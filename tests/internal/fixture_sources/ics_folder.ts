/**
 * Writes fixture calendars from a seed: a vdirsyncer-style folder of `.ics`
 * files (one VCALENDAR per file holding one event and its overrides, the UID
 * as the file name) or one exported `.ics` file holding them all; and returns
 * the ground truth: every instance within a documented window, in UTC, with
 * those a reader must leave out and why.
 *
 * The window starts 2027-03-01T00:00:00Z (the reader's "now") and lasts 60
 * days, so it crosses both DST changes (New York on 14 March, Berlin on 28
 * March). Instances that ended in the 7 days before it are listed as ended.
 *
 * @module
 */

import { basename, join } from "node:path";
import {
  type EventSpec,
  type EventZone,
  FIXED_EVENTS,
  type PartStat,
  seededEvents,
} from "./_calendar_plan.ts";
import { type Exclusion, expandEvent, type InstanceTruth, type WindowSpec } from "./_ics_expand.ts";
import { escapeText, type FixtureZone, icsText, VTIMEZONES } from "./_ics_text.ts";
import { Prng } from "./_prng.ts";

export type { EventSpec, Exclusion, InstanceTruth, PartStat, WindowSpec };

/** The person whose calendar it is. */
export const CALENDAR_OWNER = "ada@example.org";

/** The window the ground truth is expanded in. */
export const ICS_WINDOW: WindowSpec = { start: "2027-03-01T00:00:00Z", days: 60, lookbackDays: 7 };

/** The ground truth of written calendars. */
export interface IcsTruth {
  seed: number;
  owner: string;
  window: WindowSpec & { end: string; rule: string };
  /** The files written, relative to the folder (or the one exported file's name). */
  files: string[];
  events: EventSpec[];
  /** In the window or ended in the lookback, excluded ones included; EXDATEs are not instances. */
  instances: InstanceTruth[];
}

/** Options for {@link writeIcsFolder} and {@link writeIcsFile}. */
export interface WriteIcsOptions {
  seed?: number;
  /** Seeded single events written besides the fixed cases; 40 by default. */
  events?: number;
  /** Also write the ground truth as JSON here (outside a folder a reader scans). */
  truthFile?: string;
}

function icsTime(wall: string, zone: EventZone): string {
  const compact = wall.replaceAll("-", "").replace(":", "");
  if (zone === "date") return `;VALUE=DATE:${compact}`;
  if (zone === "UTC") return `:${compact}00Z`;
  if (zone === "floating") return `:${compact}00`;
  return `;TZID=${zone}:${compact}00`;
}

function addWall(wall: string, event: EventSpec): string {
  const unit = event.zone === "date" ? 86_400_000 : 60_000;
  const ms = Date.parse(wall.length === 10 ? `${wall}T00:00:00Z` : `${wall}:00Z`) +
    event.length * unit;
  return new Date(ms).toISOString().slice(0, event.zone === "date" ? 10 : 16);
}

function attendees(answer: PartStat | undefined): string[] {
  if (!answer) return [];
  return [
    "ORGANIZER;CN=Grace Hopper:mailto:grace@example.com",
    `ATTENDEE;CN="Ada Lovelace";CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=${answer};RSVP=TRUE:mailto:${CALENDAR_OWNER}`,
    "ATTENDEE;CN=Jürgen Müller;ROLE=OPT-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:juergen@example.de",
    "ATTENDEE;CN=Grace Hopper;ROLE=CHAIR;PARTSTAT=ACCEPTED:mailto:grace@example.com",
  ];
}

function eventLines(event: EventSpec): string[] {
  const text = [`SUMMARY:${escapeText(event.summary)}`];
  if (event.description) text.push(`DESCRIPTION:${escapeText(event.description)}`);
  if (event.location) text.push(`LOCATION:${escapeText(event.location)}`);
  const lines = [
    "BEGIN:VEVENT",
    `UID:${event.uid}`,
    "DTSTAMP:20270201T120000Z",
    `DTSTART${icsTime(event.start, event.zone)}`,
    `DTEND${icsTime(addWall(event.start, event), event.zone)}`,
    ...text,
  ];
  if (event.status) lines.push(`STATUS:${event.status}`);
  const rule = event.rule;
  if (rule) {
    const parts = [`FREQ=${rule.freq}`];
    if (rule.byday) parts.push(`BYDAY=${rule.byday.join(",")}`);
    if (rule.count) parts.push(`COUNT=${rule.count}`);
    if (rule.until) parts.push(`UNTIL=${rule.until.replaceAll("-", "").replace(":", "")}00Z`);
    lines.push(`RRULE:${parts.join(";")}`);
  }
  for (const exdate of event.exdates ?? []) lines.push(`EXDATE${icsTime(exdate, event.zone)}`);
  lines.push(...attendees(event.ownerAnswer), "END:VEVENT");
  for (const override of event.overrides ?? []) {
    const start = override.start ?? override.recurrenceId;
    lines.push(
      "BEGIN:VEVENT",
      `UID:${event.uid}`,
      "DTSTAMP:20270210T080000Z",
      `RECURRENCE-ID${icsTime(override.recurrenceId, event.zone)}`,
      "SEQUENCE:1",
      `DTSTART${icsTime(start, event.zone)}`,
      `DTEND${icsTime(addWall(start, event), event.zone)}`,
      ...text,
    );
    if (override.status) lines.push(`STATUS:${override.status}`);
    lines.push(...attendees(override.ownerAnswer ?? event.ownerAnswer), "END:VEVENT");
  }
  return lines;
}

function calendarText(events: EventSpec[]): string {
  const zones = new Set<FixtureZone>();
  for (const event of events) {
    const zone = VTIMEZONES.has(event.zone as FixtureZone) ? event.zone as FixtureZone : null;
    if (zone) zones.add(zone);
  }
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Sync//Fixture Calendar//EN",
    "CALSCALE:GREGORIAN",
  ];
  for (const zone of [...zones].sort()) lines.push(...VTIMEZONES.get(zone)!);
  for (const event of events) lines.push(...eventLines(event));
  lines.push("END:VCALENDAR");
  return icsText(lines);
}

function eventsOf(options: WriteIcsOptions): [number, EventSpec[]] {
  const seed = options.seed ?? 1;
  return [seed, [...FIXED_EVENTS, ...seededEvents(new Prng(seed), options.events ?? 40)]];
}

async function finish(
  seed: number,
  events: EventSpec[],
  files: string[],
  fileOf: (event: EventSpec) => string,
  options: WriteIcsOptions,
): Promise<IcsTruth> {
  const end = new Date(Date.parse(ICS_WINDOW.start) + ICS_WINDOW.days * 86_400_000);
  const truth: IcsTruth = {
    seed,
    owner: CALENDAR_OWNER,
    window: {
      ...ICS_WINDOW,
      end: end.toISOString().replace(".000", ""),
      rule:
        "An instance is in the window when it starts before its end and ends after its start; " +
        "floating and all-day times are read as UTC wall clock. Instances that ended in the " +
        `${ICS_WINDOW.lookbackDays} days before the start are listed as ended.`,
    },
    files,
    events,
    instances: events.flatMap((event) => expandEvent(event, fileOf(event), ICS_WINDOW)),
  };
  if (options.truthFile) {
    await Deno.writeTextFile(options.truthFile, JSON.stringify(truth, null, 1) + "\n");
  }
  return truth;
}

/**
 * Writes one `<UID>.ics` per event into `dir` (made if missing), as vdirsyncer
 * keeps a calendar, and returns the ground truth.
 */
export async function writeIcsFolder(
  dir: string,
  options: WriteIcsOptions = {},
): Promise<IcsTruth> {
  const [seed, events] = eventsOf(options);
  await Deno.mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const event of events) {
    const file = `${event.uid}.ics`;
    await Deno.writeTextFile(join(dir, file), calendarText([event]));
    files.push(file);
  }
  return await finish(seed, events, files, (event) => `${event.uid}.ics`, options);
}

/** Writes every event into one exported `.ics` file at `path`, and returns the ground truth. */
export async function writeIcsFile(path: string, options: WriteIcsOptions = {}): Promise<IcsTruth> {
  const [seed, events] = eventsOf(options);
  await Deno.writeTextFile(path, calendarText(events));
  const file = basename(path);
  return await finish(seed, events, [file], () => file, options);
}
