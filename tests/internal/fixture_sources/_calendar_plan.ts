/**
 * The events of a fixture calendar: a fixed set that covers each case the
 * Calendar applet must get right (recurrences across DST, EXDATE, moved and
 * cancelled instances, all-day and floating times, cancelled, declined and
 * exactly-ended events, escaped and folded text), and seeded single events
 * around them for volume.
 *
 * @module
 */

import type { FixtureZone } from "./_ics_text.ts";
import type { Prng } from "./_prng.ts";
import { asciiSentence } from "./_words.ts";

/** An attendee's answer (RFC 5545 PARTSTAT). */
export type PartStat = "ACCEPTED" | "DECLINED" | "NEEDS-ACTION" | "TENTATIVE";

/** A zone an event's times are written in. */
export type EventZone = FixtureZone | "UTC" | "floating" | "date";

/** A recurrence rule, limited to what the fixtures use. */
export interface RuleSpec {
  freq: "DAILY" | "WEEKLY" | "MONTHLY";
  byday?: string[];
  count?: number;
  /** UTC, `YYYY-MM-DDTHH:MM`, inclusive. */
  until?: string;
}

/** A RECURRENCE-ID override of one instance. */
export interface OverrideSpec {
  /** The original start, wall clock `YYYY-MM-DDTHH:MM` in the event's zone. */
  recurrenceId: string;
  start?: string;
  status?: "CANCELLED";
  ownerAnswer?: PartStat;
}

/** One event as written. */
export interface EventSpec {
  uid: string;
  summary: string;
  description?: string;
  location?: string;
  zone: EventZone;
  /** Wall clock `YYYY-MM-DDTHH:MM`, or `YYYY-MM-DD` when `zone` is `date`. */
  start: string;
  /** Minutes, or days when `zone` is `date`. */
  length: number;
  status?: "CONFIRMED" | "CANCELLED" | "TENTATIVE";
  /** The owner's answer; no attendees at all when absent. */
  ownerAnswer?: PartStat;
  rule?: RuleSpec;
  exdates?: string[];
  overrides?: OverrideSpec[];
}

const DOMAIN = "calendar.example.org";

/** The fixed events; see each one's summary for the case it covers. */
export const FIXED_EVENTS: EventSpec[] = [
  {
    uid: `standup-0001@${DOMAIN}`,
    summary: "Daily stand-up",
    zone: "Europe/Berlin",
    start: "2027-02-22T09:30",
    length: 15,
    ownerAnswer: "ACCEPTED",
    rule: { freq: "WEEKLY", byday: ["MO", "TU", "WE", "TH", "FR"], until: "2027-04-16T07:30" },
    exdates: ["2027-03-10T09:30"],
    overrides: [
      { recurrenceId: "2027-03-16T09:30", start: "2027-03-16T11:00" },
      { recurrenceId: "2027-03-18T09:30", status: "CANCELLED" },
    ],
  },
  {
    uid: `ny-sync-0002@${DOMAIN}`,
    summary: "New York sync",
    location: "Room 4B, 200 Park Ave",
    zone: "America/New_York",
    start: "2027-03-02T10:00",
    length: 60,
    ownerAnswer: "NEEDS-ACTION",
    rule: { freq: "WEEKLY", byday: ["TU", "TH"], count: 12 },
    overrides: [{ recurrenceId: "2027-03-23T10:00", ownerAnswer: "DECLINED" }],
  },
  {
    uid: `backup-0003@${DOMAIN}`,
    summary: "Backup window",
    zone: "UTC",
    start: "2027-03-10T06:00",
    length: 30,
    rule: { freq: "DAILY", count: 5 },
  },
  {
    uid: `book-club-0004@${DOMAIN}`,
    summary: "Book club",
    zone: "Europe/Berlin",
    start: "2027-01-20T18:00",
    length: 120,
    ownerAnswer: "TENTATIVE",
    rule: { freq: "MONTHLY", count: 6 },
  },
  {
    uid: `offsite-0005@${DOMAIN}`,
    summary: "Offsite: budget, Q2; planning",
    description: "Bring:\n- laptop\n- the C:\\plans folder",
    zone: "date",
    start: "2027-03-17",
    length: 1,
  },
  {
    uid: `holiday-0006@${DOMAIN}`,
    summary: "Easter holiday",
    zone: "date",
    start: "2027-04-05",
    length: 3,
  },
  {
    uid: `yoga-0007@${DOMAIN}`,
    summary: "Yoga (wherever I am)",
    zone: "floating",
    start: "2027-03-20T09:00",
    length: 60,
  },
  {
    uid: `dinner-0008@${DOMAIN}`,
    summary: "Team dinner",
    zone: "Europe/Berlin",
    start: "2027-03-12T19:00",
    length: 120,
    status: "CANCELLED",
    ownerAnswer: "ACCEPTED",
  },
  {
    uid: `review-0009@${DOMAIN}`,
    summary: "Quarterly review",
    zone: "America/New_York",
    start: "2027-03-15T13:00",
    length: 60,
    ownerAnswer: "DECLINED",
  },
  {
    uid: `ended-0010@${DOMAIN}`,
    summary: "Ends exactly when the window opens",
    zone: "UTC",
    start: "2027-02-28T23:00",
    length: 60,
  },
  {
    uid: `ongoing-0011@${DOMAIN}`,
    summary: "Still running when the window opens",
    zone: "UTC",
    start: "2027-02-28T22:00",
    length: 240,
  },
  {
    uid: `old-series-0012@${DOMAIN}`,
    summary: "Weekly series that ended",
    zone: "Europe/Berlin",
    start: "2027-01-08T08:00",
    length: 30,
    rule: { freq: "WEEKLY", byday: ["FR"], until: "2027-02-26T07:00" },
  },
  {
    uid: `window-end-0013@${DOMAIN}`,
    summary: "Starts exactly when the window closes",
    zone: "UTC",
    start: "2027-04-30T00:00",
    length: 60,
  },
  {
    uid: `long-text-0014@${DOMAIN}`,
    summary: "Grüße from the München office — a long summary that needs folding over lines",
    description: "Ünïcödé text that runs long enough to be folded at 75 octets, never inside " +
      "a character: Привет, 会議, Ελλάδα, and more words after them to go past the line.",
    zone: "Europe/Berlin",
    start: "2027-04-12T14:00",
    length: 45,
    ownerAnswer: "ACCEPTED",
  },
];

const ZONES: EventZone[] = ["Europe/Berlin", "America/New_York", "UTC", "date"];
const ANSWERS: PartStat[] = ["ACCEPTED", "DECLINED", "NEEDS-ACTION", "TENTATIVE"];

/** `count` seeded single events inside the window that starts 2027-03-01. */
export function seededEvents(prng: Prng, count: number): EventSpec[] {
  const out: EventSpec[] = [];
  for (let i = 0; i < count; i++) {
    const zone = prng.pick(ZONES);
    const day = new Date(Date.UTC(2027, 2, 1 + prng.int(0, 58))).toISOString().slice(0, 10);
    const hour = String(prng.int(8, 18)).padStart(2, "0");
    out.push({
      uid: `${prng.hex(8)}-${prng.hex(4)}-${String(i).padStart(4, "0")}@${DOMAIN}`,
      summary: asciiSentence(prng, prng.int(2, 5)).slice(0, -1),
      zone,
      start: zone === "date" ? day : `${day}T${hour}:${prng.pick(["00", "15", "30"])}`,
      length: zone === "date" ? 1 : prng.pick([30, 45, 60, 90]),
      status: prng.chance(0.1) ? "CANCELLED" : undefined,
      ownerAnswer: prng.chance(0.7) ? prng.pick(ANSWERS) : undefined,
    });
  }
  return out;
}
