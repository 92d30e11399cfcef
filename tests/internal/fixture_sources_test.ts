import assert from "node:assert/strict";
import { join } from "node:path";
import PostalMime from "postal-mime";
import ICAL from "ical.js";
import { changeMessage } from "./fixture_sources/change_message.ts";
import {
  CALENDAR_OWNER,
  type IcsTruth,
  writeIcsFile,
  writeIcsFolder,
} from "./fixture_sources/ics_folder.ts";
import { FOLDERS, type MaildirTruth, writeMaildir } from "./fixture_sources/maildir.ts";
import { main } from "./fixture_sources/write_maildir.ts";

const PERMISSIONS = { read: true, write: true } as const;

/** Every file under `dir`, relative, sorted, with its bytes and mtime. */
async function snapshot(dir: string): Promise<Map<string, [Uint8Array, number]>> {
  const out = new Map<string, [Uint8Array, number]>();
  async function walk(rel: string): Promise<void> {
    for await (const entry of Deno.readDir(join(dir, rel))) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(path);
      else {
        const file = join(dir, path);
        out.set(path, [await Deno.readFile(file), (await Deno.stat(file)).mtime!.getTime()]);
      }
    }
  }
  await walk("");
  return out;
}

async function withFolder<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "sync-fixture-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "`writeMaildir()` writes the same bytes from the same seed",
  permissions: PERMISSIONS,
  fn: () =>
    withFolder(async (dir) => {
      const a = await writeMaildir(join(dir, "a"), { messages: 200, seed: 5 });
      const b = await writeMaildir(join(dir, "b"), { messages: 200, seed: 5 });
      const c = await writeMaildir(join(dir, "c"), { messages: 200, seed: 6 });
      assert.deepEqual(a, b);
      assert.deepEqual(await snapshot(join(dir, "a")), await snapshot(join(dir, "b")));
      assert.notDeepEqual(c.messages.map((m) => m.path), a.messages.map((m) => m.path));
    }),
});

Deno.test({
  name: "`writeMaildir()` lays out a Maildir++ tree with every case the Mail applet must meet",
  permissions: PERMISSIONS,
  fn: (t) =>
    withFolder(async (dir) => {
      const maildir = join(dir, "Mail");
      const truth = await writeMaildir(maildir, {
        messages: 1000,
        seed: 2,
        truthFile: join(dir, "truth.json"),
      });

      await t.step("folders, file names and flags are in the Maildir form", async () => {
        for (const folder of FOLDERS) {
          const root = folder === "INBOX" ? maildir : join(maildir, `.${folder}`);
          for (const sub of ["cur", "new", "tmp"]) {
            assert.ok((await Deno.stat(join(root, sub))).isDirectory);
          }
        }
        assert.ok((await Deno.stat(join(maildir, ".Lists.deno", "maildirfolder"))).isFile);
        for (const m of truth.messages) {
          if (m.path.includes("/new/") || m.path.startsWith("new/")) {
            assert.match(m.path, /(^|\/)new\/\d+\.M\d+P\d+Q\d+\.fixture\.example$/);
            assert.equal(m.flags, "");
          } else {
            assert.match(m.path, /(^|\/)cur\/\d+\.M\d+P\d+Q\d+\.fixture\.example:2,[A-Z]*$/);
            assert.equal(m.path.split(":2,")[1], m.flags);
            assert.equal(m.flags, [...m.flags].sort().join(""));
          }
          const stat = await Deno.stat(join(maildir, m.path));
          assert.equal(stat.size, m.size);
          assert.equal(stat.mtime!.getTime() / 1000, m.mtime);
        }
        assert.ok(truth.messages.some((m) => m.flags.includes("R")));
        assert.ok(truth.messages.some((m) => m.flags.includes("F")));
        assert.ok(truth.messages.some((m) => m.flags.includes("T")));
      });

      await t.step("every body shape, charset and malformation is there", () => {
        const kinds = new Set(truth.messages.map((m) => m.kind));
        for (
          const kind of [
            "plain",
            "plain-qp",
            "plain-base64",
            "latin1",
            "cp1252",
            "alternative",
            "html-only",
            "nested",
            "newsletter",
            "broken-declared-utf8",
            "broken-unknown-charset",
            "truncated-base64",
            "no-header-end",
            "empty",
          ]
        ) assert.ok(kinds.has(kind as never), kind);
        assert.equal(truth.messages.filter((m) => m.size === 0).length, 1);
        assert.ok(truth.messages.some((m) => m.crlf) && truth.messages.some((m) => !m.crlf));
        assert.ok(truth.messages.some((m) => m.attachments.some((a) => a.size >= 200_000)));
      });

      await t.step("threads span folders, and some lie wholly or partly in Spam/Trash", () => {
        const junk = (f: string) => f === "Spam" || f === "Trash";
        const multi = truth.threads.filter((th) => th.messageIds.length > 1);
        assert.ok(multi.some((th) => th.folders.includes("Sent") && th.folders.includes("INBOX")));
        assert.ok(multi.some((th) => th.excluded && th.folders.every(junk)));
        assert.ok(multi.some((th) => !th.excluded && th.folders.some(junk)));
        for (const th of truth.threads) assert.equal(th.excluded, th.folders.every(junk));
      });

      await t.step(
        "the ground truth is written beside the Maildir, and refused inside it",
        async () => {
          const written = JSON.parse(await Deno.readTextFile(join(dir, "truth.json")));
          assert.deepEqual(written, JSON.parse(JSON.stringify(truth)));
          await assert.rejects(
            writeMaildir(maildir, { messages: 10, truthFile: join(maildir, "truth.json") }),
            /lies inside the Maildir/,
          );
        },
      );
    }),
});

/** Checks one message file against its ground truth with postal-mime. */
async function agreesWithPostalMime(maildir: string, m: MaildirTruth["messages"][number]) {
  const bytes = await Deno.readFile(join(maildir, m.path));
  assert.equal(bytes.includes(13), m.crlf, m.path);
  const email = await PostalMime.parse(bytes);
  assert.equal(email.messageId, m.messageId, m.path);
  assert.equal(email.subject, m.subject, m.path);
  assert.equal(email.inReplyTo, m.inReplyTo ?? undefined, m.path);
  if (m.references.length) {
    assert.equal(email.references?.replace(/\s+/g, " "), m.references.join(" "));
  }
  const text = (m.kind === "html-only" ? email.html : email.text) ?? "";
  assert.ok(text.replaceAll("\r\n", "\n").includes(m.snippet!), `${m.path}: ${m.snippet}`);
  assert.deepEqual(
    email.attachments.map((a) => [a.filename, (a.content as ArrayBuffer).byteLength]),
    m.attachments.map((a) => [a.filename, a.size]),
  );
}

Deno.test({
  name: "`writeMaildir()` ground truth agrees with postal-mime on every well-formed message",
  permissions: PERMISSIONS,
  fn: () =>
    withFolder(async (dir) => {
      const truth = await writeMaildir(dir, { messages: 400, seed: 9 });
      const sample = truth.messages.filter((m) => !m.malformed);
      assert.ok(sample.length > 390);
      for (const m of sample) await agreesWithPostalMime(dir, m);
    }),
});

Deno.test({
  name: "`writeMaildir()` at 1,500 messages: a third are HTML newsletters of 30–100 KB",
  permissions: PERMISSIONS,
  fn: () =>
    withFolder(async (dir) => {
      const started = performance.now();
      // The bench's 10,000 hold the same shares; 1,500 keep the suite's temporary files small.
      const truth = await writeMaildir(dir, { messages: 1_500, seed: 1 });
      const seconds = (performance.now() - started) / 1000;
      const bytes = truth.messages.reduce((sum, m) => sum + m.size, 0);
      console.log(`1,500 messages, ${(bytes / 1e6).toFixed(0)} MB, in ${seconds.toFixed(1)} s`);
      assert.equal(truth.messages.length, 1_500);
      const newsletters = truth.messages.filter((m) => m.kind === "newsletter");
      assert.equal(newsletters.length, 500);
      for (const m of newsletters) {
        assert.ok(m.html && m.size >= 30_000 && m.size <= 100_000, `${m.path}: ${m.size}`);
      }
      assert.equal(truth.messages.filter((m) => m.malformed).length, 3);
      let files = 0;
      for (const folder of FOLDERS) {
        const root = folder === "INBOX" ? dir : join(dir, `.${folder}`);
        for (const sub of ["cur", "new"]) {
          for await (const _ of Deno.readDir(join(root, sub))) files++;
        }
      }
      assert.equal(files, 1_500);
      for (const m of newsletters.filter((_, i) => i % 50 === 0)) {
        await agreesWithPostalMime(dir, m);
      }
    }),
});

Deno.test({
  name: "`changeMessage()` rewrites, marks seen, vanishes and blocks a message",
  permissions: PERMISSIONS,
  fn: (t) =>
    withFolder(async (dir) => {
      const truth = await writeMaildir(dir, { messages: 50, seed: 4 });
      const inNew = truth.messages.filter((m) => /(^|\/)new\//.test(m.path));
      const inCur = truth.messages.filter((m) => m.path.includes("cur/") && m.size > 0);

      await t.step("a rewrite in place changes size and mtime, not the name", async () => {
        const m = inCur[0];
        const changed = await changeMessage(dir, m.path, { kind: "rewrite", mtime: m.mtime + 60 });
        const stat = await Deno.stat(join(dir, m.path));
        assert.equal(changed.path, m.path);
        assert.equal(stat.size, changed.size);
        assert.ok(stat.size > m.size);
        assert.equal(stat.mtime!.getTime() / 1000, m.mtime + 60);
        const email = await PostalMime.parse(await Deno.readFile(join(dir, m.path)));
        assert.equal(email.messageId, m.messageId);
      });

      await t.step("marking seen moves new/ to cur/ with :2,S and keeps the mtime", async () => {
        const m = inNew[0];
        const changed = await changeMessage(dir, m.path, { kind: "seen" });
        assert.equal(changed.path, m.path.replace("new/", "cur/") + ":2,S");
        await assert.rejects(Deno.stat(join(dir, m.path)), Deno.errors.NotFound);
        assert.equal((await Deno.stat(join(dir, changed.path!))).mtime!.getTime() / 1000, m.mtime);
        const again = await changeMessage(dir, changed.path!, { kind: "seen", flags: "F" });
        assert.ok(again.path!.endsWith(":2,FS"));
      });

      await t.step("a vanished message is gone", async () => {
        await changeMessage(dir, inCur[1].path, { kind: "vanish" });
        await assert.rejects(Deno.stat(join(dir, inCur[1].path)), Deno.errors.NotFound);
      });

      await t.step("an unreadable message has mode 000 until restored", async () => {
        const changed = await changeMessage(dir, inCur[2].path, { kind: "unreadable" });
        try {
          assert.equal((await Deno.stat(join(dir, inCur[2].path))).mode! & 0o777, 0);
          // File modes do not stop root; the folder this process made is owned by it.
          if ((await Deno.stat(dir)).uid !== 0) assert.equal(changed.readable, false);
        } finally {
          await changed.restore!();
        }
      });
    }),
});

Deno.test({
  name:
    "`main()` of write_maildir.ts writes a Maildir and its ground truth, and refuses bad arguments",
  permissions: PERMISSIONS,
  fn: () =>
    withFolder(async (dir) => {
      assert.equal(
        await main([join(dir, "m"), "--messages", "30", "--truth", join(dir, "t.json")]),
        0,
      );
      const truth = JSON.parse(await Deno.readTextFile(join(dir, "t.json")));
      assert.equal(truth.messages.length, 30);
      assert.equal(await main([join(dir, "m"), "--messages", "many"]), 2);
    }),
});

/** Instances ical.js finds in a calendar text, in the ground truth's form. */
function icalInstances(text: string, file: string, truth: IcsTruth): string[] {
  const windowStart = Date.parse(truth.window.start);
  const windowEnd = Date.parse(truth.window.end);
  const lookback = windowStart - truth.window.lookbackDays * 86_400_000;
  const root = new ICAL.Component(ICAL.parse(text));
  for (const zone of root.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(zone);
  const vevents = root.getAllSubcomponents("vevent");
  const shown = (time: ICAL.Time) =>
    time.isDate
      ? time.toString()
      : time.zone === ICAL.Timezone.localTimezone
      ? time.toString().slice(0, 19)
      : time.toJSDate().toISOString().replace(".000", "");
  const wall = (s: string) =>
    Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s.endsWith("Z") ? s : `${s}Z`);
  const out: string[] = [];
  for (const master of vevents.filter((v) => !v.hasProperty("recurrence-id"))) {
    const event = new ICAL.Event(master);
    for (const v of vevents) {
      if (v.hasProperty("recurrence-id") && v.getFirstPropertyValue("uid") === event.uid) {
        event.relateException(v);
      }
    }
    const occurrences: [ICAL.Time, ICAL.Time, ICAL.Event][] = [];
    if (event.isRecurring()) {
      const iterator = event.iterator();
      for (let next = iterator.next(); next; next = iterator.next()) {
        const details = event.getOccurrenceDetails(next);
        if (wall(shown(details.startDate)) >= windowEnd) break;
        occurrences.push([details.startDate, details.endDate, details.item]);
      }
    } else occurrences.push([event.startDate, event.endDate, event]);
    for (const [start, end, item] of occurrences) {
      const [s, e] = [shown(start), shown(end)];
      const inWindow = wall(s) < windowEnd && wall(e) > windowStart;
      const ended = wall(e) <= windowStart && wall(e) > lookback;
      if (!inWindow && !ended) continue;
      const own = item.attendees.find((a) =>
        String(a.getFirstValue()).toLowerCase() === `mailto:${CALENDAR_OWNER}`
      );
      const answer = own ? String(own.getParameter("partstat")) : null;
      const excluded = item.component.getFirstPropertyValue("status") === "CANCELLED"
        ? "cancelled"
        : answer === "DECLINED"
        ? "declined"
        : ended
        ? "ended"
        : null;
      out.push([event.uid, file, s, e, answer, excluded].join(" | "));
    }
  }
  return out;
}

function truthLines(truth: IcsTruth): string[] {
  return truth.instances.map((i) =>
    [i.uid, i.file, i.start, i.end, i.ownerAnswer, i.excluded].join(" | ")
  ).sort();
}

Deno.test({
  name:
    "`writeIcsFolder()` ground truth agrees with ical.js, DST, overrides and exclusions included",
  permissions: PERMISSIONS,
  fn: (t) =>
    withFolder(async (dir) => {
      const truth = await writeIcsFolder(join(dir, "cal"), { seed: 3 });
      const found: string[] = [];
      for (const file of truth.files) {
        found.push(...icalInstances(await Deno.readTextFile(join(dir, "cal", file)), file, truth));
      }
      assert.deepEqual(found.sort(), truthLines(truth));

      await t.step("each case the Calendar applet must meet is in the truth", () => {
        const reasons = new Set(truth.instances.map((i) => i.excluded));
        for (const reason of [null, "cancelled", "declined", "ended"]) {
          assert.ok(reasons.has(reason as never));
        }
        const standup = truth.instances.filter((i) => i.uid.startsWith("standup-"));
        assert.ok(standup.some((i) =>
          i.start === "2027-03-16T10:00:00Z" && i.recurrenceId === "2027-03-16T08:30:00Z"
        ));
        assert.ok(
          !standup.some((i) =>
            i.start.startsWith("2027-03-10")
          ),
        );
        assert.ok(standup.some((i) => i.start === "2027-03-29T07:30:00Z"));
        assert.ok(truth.instances.some((i) => i.allDay) && truth.instances.some((i) => i.floating));
        assert.ok(!truth.instances.some((i) => i.uid.startsWith("window-end-")));
      });

      await t.step("the same seed writes the same bytes", async () => {
        await writeIcsFolder(join(dir, "again"), { seed: 3 });
        assert.deepEqual(
          [...(await snapshot(join(dir, "again"))).entries()].map(([k, [b]]) => [k, b]),
          [...(await snapshot(join(dir, "cal"))).entries()].map(([k, [b]]) => [k, b]),
        );
      });

      await t.step("escaped and folded text reads back whole", async () => {
        const file = truth.files.find((f) => f.startsWith("offsite-"))!;
        const text = await Deno.readTextFile(join(dir, "cal", file));
        assert.match(text, /SUMMARY:Offsite: budget\\, Q2\\; planning/);
        const event = new ICAL.Event(
          new ICAL.Component(ICAL.parse(text)).getFirstSubcomponent("vevent")!,
        );
        assert.equal(event.summary, "Offsite: budget, Q2; planning");
        assert.equal(event.description, "Bring:\n- laptop\n- the C:\\plans folder");
        for (const line of text.split("\r\n")) {
          assert.ok(new TextEncoder().encode(line).length <= 75, line);
        }
      });
    }),
});

Deno.test({
  name: "`writeIcsFile()` writes every event into one file with the same instances",
  permissions: PERMISSIONS,
  fn: () =>
    withFolder(async (dir) => {
      const path = join(dir, "export.ics");
      const truth = await writeIcsFile(path, { seed: 3, truthFile: join(dir, "truth.json") });
      assert.deepEqual(truth.files, ["export.ics"]);
      const text = await Deno.readTextFile(path);
      assert.equal(text.match(/BEGIN:VTIMEZONE/g)?.length, 2);
      assert.deepEqual(icalInstances(text, "export.ics", truth).sort(), truthLines(truth));
      const folder = await writeIcsFolder(join(dir, "cal"), { seed: 3 });
      assert.equal(truth.instances.length, folder.instances.length);
    }),
});
