import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type CalendarSyncAnswer,
  calendarSyncStep,
  type CalendarSyncStepOptions,
  STATUS_KEY,
} from "../../../extensions/calendar/src/calendar_sync_step.ts";
import { calendarWindow } from "../../../extensions/calendar/src/calendar_window.ts";
import { EVENT_KIND } from "../../../extensions/calendar/src/event_record.ts";
import { eventKey } from "../../../extensions/calendar/src/event_key.ts";
import { OWNER_KEY } from "../../../extensions/calendar/src/owner_addresses.ts";
import { calendarFile } from "../../../extensions/calendar/src/calendar_file.ts";
import {
  CALENDAR_OWNER,
  ICS_WINDOW,
  type IcsTruth,
  writeIcsFile,
  writeIcsFolder,
} from "../../internal/fixture_sources/ics_folder.ts";
import { TestRecordStore } from "../../internal/test_record_store.ts";
import { IcsAccount, instant } from "./_calendar_account.ts";

const NOW = Date.parse(ICS_WINDOW.start);
const DAY = 86_400_000;

interface Run {
  steps: CalendarSyncAnswer[];
  last: CalendarSyncAnswer;
  parsed: number;
}

async function runSync(
  account: IcsAccount,
  store: TestRecordStore,
  options: CalendarSyncStepOptions,
): Promise<Run> {
  const before = account.parsed.length;
  const steps: CalendarSyncAnswer[] = [];
  let state: unknown = null;
  for (let step = 0; step < 500; step++) {
    store.beginCall();
    const answer = await calendarSyncStep(account, store, state as never, options);
    assert.ok(store.changed.size <= 90, `step ${step} changed ${store.changed.size} records`);
    steps.push(answer);
    if (answer.continue === undefined) {
      return { steps, last: answer, parsed: account.parsed.length - before };
    }
    state = answer.continue;
  }
  throw new Error("the sync did not finish in 500 steps");
}

/** The keys the truth says are kept at `now`: in the window, not cancelled, declined or ended. */
function expectedKeys(truth: IcsTruth, now: number, ownerKnown: boolean): string[] {
  const window = calendarWindow(now);
  const from = Date.parse(window.from);
  const to = from + window.days * DAY;
  return truth.instances.filter((i) =>
    instant(i.start) < to && instant(i.end) > now &&
    i.excluded !== "cancelled" && (!ownerKnown || i.ownerAnswer !== "DECLINED")
  ).map((i) => `${EVENT_KIND}/${eventKey(i.uid, i.recurrenceId)}`).sort();
}

function eventKeys(store: TestRecordStore): string[] {
  return store.ofKind(EVENT_KIND).map((r) => r.key);
}

async function withFolder(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function ownedStore(): TestRecordStore {
  const store = new TestRecordStore();
  store.records.set(OWNER_KEY, {
    key: OWNER_KEY,
    title: "",
    fields: { addresses: [CALENDAR_OWNER] },
    content: "",
    revision: 1,
  });
  return store;
}

Deno.test("`calendarSyncStep()` keeps one record per occurrence of a vdirsyncer folder", async (t) => {
  await withFolder(async (dir) => {
    const truth = await writeIcsFolder(join(dir, "cal"), { seed: 3 });
    const account = new IcsAccount(join(dir, "cal"), truth);
    const store = ownedStore();
    const first = await runSync(account, store, { now: NOW });

    await t.step("the occurrences kept are those the truth keeps, by uid and recurrence id", () => {
      assert.deepEqual(eventKeys(store), expectedKeys(truth, NOW, true));
      assert.equal(first.parsed, truth.files.length);
      assert.deepEqual(first.last.coverage, {
        read: truth.files.length,
        of: truth.files.length,
        failed: 0,
        reasons: [],
        items: { one: "calendar file", other: "calendar files" },
      });
    });

    await t.step("cancelled, declined and exactly ended occurrences are left out", () => {
      const has = (uid: string, recurrenceId: string | null = null) =>
        store.records.has(`${EVENT_KIND}/${eventKey(uid, recurrenceId)}`);
      assert.equal(has("dinner-0008@calendar.example.org"), false); // cancelled
      assert.equal(has("review-0009@calendar.example.org"), false); // declined
      assert.equal(has("ended-0010@calendar.example.org"), false); // ends exactly at now
      assert.equal(has("ongoing-0011@calendar.example.org"), true); // still running
      const standup = truth.instances.filter((i) => i.uid.startsWith("standup-0001"));
      const moved = standup.find((i) => i.start === "2027-03-16T10:00:00Z")!;
      assert.equal(has(moved.uid, moved.recurrenceId), true);
      const cancelled = standup.find((i) => i.excluded === "cancelled")!;
      assert.equal(has(cancelled.uid, cancelled.recurrenceId), false);
      const declined = truth.instances.find((i) =>
        i.uid.startsWith("ny-sync-0002") && i.ownerAnswer === "DECLINED"
      )!;
      assert.equal(has(declined.uid, declined.recurrenceId), false);
    });

    await t.step("a record holds the occurrence's times, place and the owner's answer", () => {
      const ny = truth.instances.find((i) =>
        i.uid.startsWith("ny-sync-0002") && i.excluded === null
      )!;
      const record = store.records.get(`${EVENT_KIND}/${eventKey(ny.uid, ny.recurrenceId)}`)!;
      assert.equal(record.title, "New York sync");
      assert.equal(record.fields.start, new Date(instant(ny.start)).toISOString());
      assert.equal(record.fields.location, "Room 4B, 200 Park Ave");
      assert.equal(record.fields.ownerAnswer, "NEEDS-ACTION");
      assert.equal(record.fields.file, ny.file);
      assert.ok(record.content.includes("Where: Room 4B, 200 Park Ave"));
    });

    await t.step("a second read with nothing changed parses and writes nothing", async () => {
      const writes = store.writes;
      const again = await runSync(account, store, { now: NOW + 60_000 });
      assert.equal(again.parsed, 0);
      assert.equal(store.writes, writes);
    });

    await t.step(
      "a changed file is read again and only its changed occurrences written",
      async () => {
        const file = "book-club-0004@calendar.example.org.ics";
        const writes = store.writes;
        await account.edit(
          file,
          (list) => list.map((i) => ({ ...i, summary: "Book club (moved)" })),
        );
        const run = await runSync(account, store, { now: NOW + 120_000 });
        assert.equal(run.parsed, 1);
        const changed = store.ofKind(EVENT_KIND).filter((r) => r.title === "Book club (moved)");
        assert.ok(changed.length > 0);
        assert.equal(store.writes, writes + changed.length + 1); // and the status record
      },
    );

    await t.step("an occurrence that ends is removed without reading anything", async () => {
      // The Backup window runs daily 06:00–06:30 UTC from 10 March.
      const backup = truth.instances.filter((i) => i.uid.startsWith("backup-0003"))[0];
      const key = `${EVENT_KIND}/${eventKey(backup.uid, backup.recurrenceId)}`;
      const later = instant(backup.end);
      assert.ok(store.records.has(key));
      // A copy of the memory whose status says each file was read for the day of `later`'s
      // window, so nothing is due to be read again.
      const lateStore = new TestRecordStore();
      for (const [k, v] of store.records) lateStore.records.set(k, structuredClone(v));
      const status = lateStore.records.get(STATUS_KEY)!;
      const day = new Date(later - DAY).toISOString().slice(0, 10);
      status.content = status.content.replaceAll(/"pass":"[^|"]*\|/g, `"pass":"${day}|`);
      const run = await runSync(account, lateStore, { now: later });
      assert.equal(run.parsed, 0);
      assert.equal(lateStore.records.has(key), false);
      assert.ok(lateStore.ofKind(EVENT_KIND).some((r) => r.fields.file === backup.file));
    });

    await t.step("a file that cannot be read keeps its records and says why", async () => {
      const file = "yoga-0007@calendar.example.org.ics";
      const kept = store.ofKind(EVENT_KIND).filter((r) => r.fields.file === file);
      assert.ok(kept.length > 0);
      await account.edit(file, (list) => list);
      account.failing.add(file);
      const run = await runSync(account, store, { now: NOW + 180_000 });
      assert.equal(run.parsed, 1);
      assert.equal(run.last.coverage.failed, 1);
      assert.deepEqual(run.last.coverage.reasons, [{ item: file, reason: "PermissionDenied" }]);
      assert.deepEqual(store.ofKind(EVENT_KIND).filter((r) => r.fields.file === file), kept);
      assert.equal((await runSync(account, store, { now: NOW + 240_000 })).parsed, 0);
      account.failing.clear();
      const asked = await runSync(account, store, { now: NOW + 300_000, retryFailed: true });
      assert.equal(asked.parsed, 1);
      assert.equal(asked.last.coverage.failed, 0);
      assert.deepEqual(store.ofKind(EVENT_KIND).filter((r) => r.fields.file === file), kept);
      assert.equal(store.records.get(STATUS_KEY)!.fields.failed, 0);
    });

    await t.step(
      "a day later every file is read again; what ended is removed, the rest kept",
      async () => {
        const revisions = new Map(store.ofKind(EVENT_KIND).map((r) => [r.key, r.revision]));
        const later = NOW + DAY;
        const run = await runSync(account, store, { now: later });
        assert.equal(run.parsed, truth.files.length);
        const expected = expectedKeys(truth, later, true);
        assert.deepEqual(eventKeys(store), expected);
        assert.ok(expected.length < revisions.size);
        for (const record of store.ofKind(EVENT_KIND)) {
          if (revisions.has(record.key)) assert.equal(record.revision, revisions.get(record.key));
        }
      },
    );

    await t.step("a file that went away takes its occurrences with it, unread", async () => {
      const file = "standup-0001@calendar.example.org.ics";
      await Deno.remove(join(dir, "cal", file));
      const run = await runSync(account, store, { now: NOW + DAY + 60_000 });
      assert.equal(run.parsed, 0);
      assert.equal(store.ofKind(EVENT_KIND).some((r) => r.fields.file === file), false);
      assert.equal(run.last.coverage.of, truth.files.length - 1);
    });
  });
});

Deno.test("`calendarSyncStep()` reads one exported file in steps of at most 90 records", async () => {
  await withFolder(async (dir) => {
    const truth = await writeIcsFile(join(dir, "export.ics"), { seed: 4, events: 200 });
    await Deno.mkdir(join(dir, "cal"));
    await Deno.rename(join(dir, "export.ics"), join(dir, "cal", "export.ics"));
    const account = new IcsAccount(join(dir, "cal"), truth);
    const store = ownedStore();
    const expected = expectedKeys(truth, NOW, true);
    assert.ok(expected.length > 180, `${expected.length} occurrences`);
    const run = await runSync(account, store, { now: NOW });
    assert.ok(run.steps.length >= 3);
    assert.deepEqual(eventKeys(store), expected);
    assert.equal(run.last.coverage.read, 1);
    const again = await runSync(account, store, { now: NOW });
    assert.equal(again.parsed, 0);
  });
});

Deno.test("`calendarSyncStep()` leaves declined events in until the owner is known", async () => {
  await withFolder(async (dir) => {
    const truth = await writeIcsFolder(join(dir, "cal"), { seed: 5, events: 10 });
    const account = new IcsAccount(join(dir, "cal"), truth);
    const store = new TestRecordStore();
    await runSync(account, store, { now: NOW });
    assert.deepEqual(eventKeys(store), expectedKeys(truth, NOW, false));
    assert.deepEqual(store.records.get(STATUS_KEY)!.fields.owner, []);
    // Setting the owner reads every file again, for the owner's answers.
    store.records.set(OWNER_KEY, {
      key: OWNER_KEY,
      title: "",
      fields: { addresses: ["Ada@Example.org"] },
      content: "",
      revision: 1,
    });
    const run = await runSync(account, store, { now: NOW });
    assert.equal(run.parsed, truth.files.length);
    assert.deepEqual(eventKeys(store), expectedKeys(truth, NOW, true));
  });
});

Deno.test("`calendarFile()` takes .ics files and leaves hidden ones", () => {
  assert.equal(calendarFile("work/abc.ics"), true);
  assert.equal(calendarFile("EXPORT.ICS"), true);
  assert.equal(calendarFile(".status/abc.ics"), false);
  assert.equal(calendarFile(".#abc.ics"), false);
  assert.equal(calendarFile("notes.txt"), false);
});
