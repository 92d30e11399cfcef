import assert from "node:assert/strict";
import { join } from "node:path";
import type { RecordSummary } from "../../../runtime/extension_api/service.ts";
import { readDeviceRecord } from "../../../runtime/applets/mod.ts";
import { calendarWindow } from "../../../extensions/calendar/src/calendar_window.ts";
import {
  ICS_WINDOW,
  type IcsTruth,
  type InstanceTruth,
  writeIcsFile,
  writeIcsFolder,
} from "../../internal/fixture_sources/ics_folder.ts";
import { type RealApplet, realApplet } from "../../internal/real_applet.ts";
import { instant } from "./_calendar_account.ts";

const EVENT = "calendar.event";
const NOW = Date.parse(ICS_WINDOW.start);
const DAY = 86_400_000;

/** An occurrence's identity: its UID and the instant of its recurrence id. */
function occurrence(uid: string, recurrenceId: string | null): string {
  return `${uid} ${recurrenceId === null ? "" : new Date(at(recurrenceId)).toISOString()}`;
}

/** The instant of a time as the truth writes it (UTC or no zone) or as a record does (an offset). */
function at(text: string): number {
  return /(Z|[+-]\d\d:\d\d)$/.test(text) ? Date.parse(text) : instant(text);
}

/** The occurrences the truth keeps at `now`: in the window, not cancelled, declined or ended. */
function kept(truth: IcsTruth, now: number): Map<string, InstanceTruth> {
  const from = Date.parse(calendarWindow(now).from);
  const to = from + calendarWindow(now).days * DAY;
  return new Map(
    truth.instances.filter((i) =>
      instant(i.start) < to && instant(i.end) > now && i.excluded !== "cancelled" &&
      i.ownerAnswer !== "DECLINED"
    ).map((i) => [occurrence(i.uid, i.recurrenceId), i]),
  );
}

/** The event records by occurrence. */
function byOccurrence(records: Map<string, RecordSummary>): Map<string, RecordSummary> {
  return new Map(
    [...records.values()].map((r) => [
      occurrence(r.fields.uid as string, r.fields.recurrenceId as string | null),
      r,
    ]),
  );
}

/** The Calendar applet installed from its folder at the fixture's now, its owner set by its handler. */
async function withCalendar(
  write: (folder: string) => Promise<IcsTruth>,
  fn: (applet: RealApplet, truth: IcsTruth) => Promise<void>,
): Promise<void> {
  const applet = await realApplet("calendar", { at: NOW });
  try {
    const folder = join(applet.dir, "calendar");
    await Deno.mkdir(folder);
    const truth = await write(folder);
    assert.deepEqual(
      await applet.env.call("calendar", "calendar.owner", { addresses: [truth.owner] }),
      { addresses: [truth.owner] },
    );
    await applet.runner.connect(applet.env.project, "calendar", { kind: "folder", folder });
    await fn(applet, truth);
  } finally {
    await applet.close();
  }
}

function sync(applet: RealApplet) {
  return applet.runner.runTask(applet.env.project, "calendar", "sync", { trigger: "agent" });
}

function revisions(records: Map<string, RecordSummary>): Map<string, number> {
  return new Map([...records].map(([key, record]) => [key, record.revision]));
}

for (
  const [what, write] of [
    ["a vdirsyncer folder", (folder: string) => writeIcsFolder(folder, { seed: 3 })],
    [
      "one exported file",
      (folder: string) => writeIcsFile(join(folder, "export.ics"), { seed: 3 }),
    ],
  ] as const
) {
  Deno.test(`the Calendar applet reads ${what} through a real host and task runner`, async (t) => {
    await withCalendar(write, async (applet, truth) => {
      const first = await sync(applet);
      const records = await applet.records(EVENT);
      const expected = kept(truth, NOW);

      await t.step("the first read ends ok, every file read", async () => {
        assert.equal(first.outcome, "ok", first.error);
        const coverage = {
          read: truth.files.length,
          of: truth.files.length,
          failed: 0,
          reasons: [],
          items: { one: "calendar file", other: "calendar files" },
        };
        assert.deepEqual(first.coverage, coverage);
        const device = await readDeviceRecord(applet.env.kv, applet.env.project, "calendar");
        assert.deepEqual(device.lastRead?.coverage, coverage);
      });

      await t.step("one record per occurrence the truth keeps, at its times", () => {
        const found = byOccurrence(records);
        assert.equal(found.size, records.size, "two records hold one occurrence");
        assert.deepEqual([...found.keys()].sort(), [...expected.keys()].sort());
        for (const [key, instance] of expected) {
          const record = found.get(key)!;
          assert.equal(record.title, instance.summary, key);
          assert.equal(Date.parse(record.fields.start as string), instant(instance.start), key);
          assert.equal(Date.parse(record.fields.end as string), instant(instance.end), key);
          assert.equal(record.fields.allDay, instance.allDay, key);
          assert.equal(record.fields.ownerAnswer, instance.ownerAnswer, key);
          assert.equal(record.fields.file, instance.file, key);
        }
      });

      await t.step("cancelled, declined and ended occurrences are left out", () => {
        const left = truth.instances.filter((i) => i.excluded !== null);
        for (const reason of ["cancelled", "declined", "ended"]) {
          assert.ok(left.some((i) => i.excluded === reason), `the fixture has a ${reason} one`);
        }
        const found = byOccurrence(records);
        for (const instance of left) {
          assert.ok(!found.has(occurrence(instance.uid, instance.recurrenceId)), instance.uid);
        }
        // Across both DST changes, and a moved occurrence at its new time.
        const standup = [...expected.values()].filter((i) => i.uid.startsWith("standup-0001"));
        assert.ok(standup.some((i) => i.start === "2027-03-16T10:00:00Z"));
        assert.ok(standup.some((i) => instant(i.start) > Date.parse("2027-03-29")));
      });

      await t.step("a second read with nothing changed parses and writes nothing", async () => {
        const parsed = applet.parsers.calendars;
        const again = await sync(applet);
        assert.equal(again.outcome, "ok", again.error);
        assert.equal(applet.parsers.calendars, parsed);
        assert.deepEqual(revisions(await applet.records(EVENT)), revisions(records));
      });

      await t.step("a day later, what ended since is gone and the rest is unchanged", async () => {
        applet.timers.time = NOW + DAY;
        const later = await sync(applet);
        assert.equal(later.outcome, "ok", later.error);
        const now = await applet.records(EVENT);
        // The truth lists what starts before its window's end; the window moved a day past it.
        const end = Date.parse(truth.window.end);
        const found = [...byOccurrence(now)].filter(([, r]) => at(r.fields.start as string) < end);
        assert.deepEqual(
          found.map(([occurrence]) => occurrence).sort(),
          [...kept(truth, NOW + DAY).keys()].sort(),
        );
        for (const [key, record] of now) {
          if (records.has(key)) assert.equal(record.revision, records.get(key)!.revision, key);
        }
      });
    });
  });
}

Deno.test("the Calendar applet keeps the records of a file it cannot read, and says why", async () => {
  await withCalendar((folder) => writeIcsFolder(folder, { seed: 3 }), async (applet, truth) => {
    assert.equal((await sync(applet)).outcome, "ok");
    const records = await applet.records(EVENT);
    const file = truth.files.find((f) => f.startsWith("standup-0001"))!;
    const held = [...records.values()].filter((r) => r.fields.file === file);
    assert.ok(held.length > 10);
    const folder = join(applet.dir, "calendar");
    await Deno.writeTextFile(join(folder, file), "BEGIN:VCALENDAR\nthis is no calendar\n");
    const run = await sync(applet);
    assert.equal(run.outcome, "ok", run.error);
    assert.equal(run.coverage?.read, truth.files.length - 1);
    assert.equal(run.coverage?.failed, 1);
    assert.equal(run.coverage?.reasons?.[0].item, file);
    assert.match(run.coverage!.reasons![0].reason, /could not be read as a calendar/);
    assert.deepEqual(revisions(await applet.records(EVENT)), revisions(records));
    const device = await readDeviceRecord(applet.env.kv, applet.env.project, "calendar");
    assert.deepEqual(device.lastRead?.coverage, run.coverage);
  });
});

Deno.test("the Calendar applet reads every file again when `calendar.owner` changes the owner", async () => {
  await withCalendar((folder) => writeIcsFolder(folder, { seed: 3 }), async (applet, truth) => {
    assert.equal((await sync(applet)).outcome, "ok");
    const declined = truth.instances.filter((i) =>
      i.ownerAnswer === "DECLINED" && i.excluded === "declined"
    );
    assert.ok(declined.length > 0);
    const parsed = applet.parsers.calendars;
    await applet.env.call("calendar", "calendar.owner", { addresses: ["someone@example.org"] });
    const run = await sync(applet);
    assert.equal(run.outcome, "ok", run.error);
    assert.equal(applet.parsers.calendars, parsed + truth.files.length);
    // Ada's declines are no one's now: her declined occurrences are kept, with her answer.
    const found = byOccurrence(await applet.records(EVENT));
    for (const instance of declined) {
      const record = found.get(occurrence(instance.uid, instance.recurrenceId));
      assert.ok(record, `${instance.uid} ${instance.recurrenceId}`);
      assert.equal(record.fields.ownerAnswer, null);
    }
  });
});
