/**
 * The account a Calendar task step is given, over real fixture `.ics` files: `list` walks the
 * folder, and `parseCalendar` answers the occurrences the platform's parser would expand in the
 * window, built from the fixture's ground truth (the parser is the platform's, tested with it)
 * after reading the file, so a vanished file fails as it would. Every parsed path is counted;
 * a test that edits a file says what its events became with {@link CalendarAccount.edit}.
 *
 * @module
 */

import { join } from "node:path";
import type {
  AccountEntry,
  AccountListing,
  CalendarAccount,
  Parsed,
  ParsedEvent,
} from "../../../extensions/calendar/src/account_types.ts";
import {
  CALENDAR_OWNER,
  type EventSpec,
  type IcsTruth,
  type InstanceTruth,
} from "../../internal/fixture_sources/ics_folder.ts";

/** An instant of the truth's form (`…Z`, floating, or a date) in ms; floating and dates as UTC. */
export function instant(text: string): number {
  if (text.length === 10) return Date.parse(`${text}T00:00:00Z`);
  return Date.parse(text.endsWith("Z") ? text : `${text}Z`);
}

/** A fixture calendar folder's account, counting what it parses. */
export class IcsAccount implements CalendarAccount {
  /** Every path parsed, in order. */
  parsed: string[] = [];
  /** Paths whose read fails as an unreadable file's does. */
  failing = new Set<string>();
  #instances = new Map<string, InstanceTruth[]>();
  #events = new Map<string, EventSpec>();

  /** `dir` holds the files `truth` describes. */
  constructor(readonly dir: string, truth: IcsTruth) {
    for (const event of truth.events) this.#events.set(event.uid, event);
    for (const instance of truth.instances) {
      const list = this.#instances.get(instance.file) ?? [];
      list.push(instance);
      this.#instances.set(instance.file, list);
    }
  }

  /** Rewrites `file` with a line added and makes its occurrences what `change` returns. */
  async edit(file: string, change: (instances: InstanceTruth[]) => InstanceTruth[]): Promise<void> {
    const path = join(this.dir, file);
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(path, text.replace("END:VCALENDAR", "X-EDITED:1\r\nEND:VCALENDAR"));
    this.#instances.set(file, change(this.#instances.get(file) ?? []));
  }

  async list(options: { cursor?: string; recursive?: boolean } = {}): Promise<AccountListing> {
    const entries: AccountEntry[] = [];
    for await (const entry of Deno.readDir(this.dir)) {
      const stat = await Deno.stat(join(this.dir, entry.name));
      entries.push({
        path: entry.name,
        kind: entry.isDirectory ? "folder" : "file",
        size: stat.size,
        mtime: stat.mtime?.getTime() ?? null,
      });
    }
    entries.sort((a, b) => a.path < b.path ? -1 : 1);
    const start = options.cursor ? Number(options.cursor) : 0;
    const end = start + 25;
    return {
      entries: entries.slice(start, end),
      cursor: end < entries.length ? String(end) : null,
    };
  }

  async parseCalendar(
    paths: string[],
    window: { from: string; days: number },
  ): Promise<Parsed<ParsedEvent[]>[]> {
    if (paths.length > 32) {
      throw new Error(`parseCalendar takes 32 paths a call, not ${paths.length}`);
    }
    const from = Date.parse(window.from);
    const to = from + window.days * 86_400_000;
    const out: Parsed<ParsedEvent[]>[] = [];
    for (const path of paths) {
      this.parsed.push(path);
      let size: number;
      let mtime: number | null;
      try {
        if (this.failing.has(path)) throw new Deno.errors.PermissionDenied(path);
        await Deno.readTextFile(join(this.dir, path));
        const stat = await Deno.stat(join(this.dir, path));
        size = stat.size;
        mtime = stat.mtime?.getTime() ?? null;
      } catch (error) {
        out.push({ path, size: 0, mtime: null, ok: false, reason: (error as Error).name });
        continue;
      }
      const events = (this.#instances.get(path) ?? [])
        .filter((i) => instant(i.start) < to && instant(i.end) > from)
        .map((i) => this.#parsed(i));
      out.push({ path, size, mtime, ok: true, value: events });
    }
    return out;
  }

  #parsed(instance: InstanceTruth): ParsedEvent {
    const event = this.#events.get(instance.uid)!;
    const iso = (text: string) => new Date(instant(text)).toISOString();
    const grace = { name: "Grace Hopper", address: "grace@example.com" };
    return {
      uid: instance.uid,
      recurrenceId: instance.recurrenceId,
      summary: instance.summary,
      description: event.description ?? "",
      location: event.location ?? "",
      start: iso(instance.start),
      end: iso(instance.end),
      allDay: instance.allDay,
      timeZone: instance.floating || instance.allDay || event.zone === "UTC" ? null : event.zone,
      status: instance.excluded === "cancelled"
        ? "cancelled"
        : event.status === "TENTATIVE"
        ? "tentative"
        : "confirmed",
      organizer: instance.ownerAnswer ? grace : null,
      attendees: instance.ownerAnswer
        ? [
          { name: "Ada Lovelace", address: CALENDAR_OWNER, partstat: instance.ownerAnswer },
          { name: "Jürgen Müller", address: "juergen@example.de", partstat: "ACCEPTED" },
          { ...grace, partstat: "ACCEPTED" },
        ]
        : [],
    };
  }
}
