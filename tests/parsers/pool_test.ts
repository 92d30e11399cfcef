import assert from "node:assert/strict";
import { join } from "node:path";
import { ParserPool } from "../../runtime/parsers/mod.ts";
import { PARSER_LIMITS } from "../../runtime/limits.ts";
import { InvalidInputError } from "../../runtime/errors.ts";
import { writeMaildir } from "../internal/fixture_sources/maildir.ts";
import {
  ICS_WINDOW,
  writeIcsFile,
  writeIcsFolder,
} from "../internal/fixture_sources/ics_folder.ts";

const DAY = 86_400_000;

/** The fixtures' window with its lookback: every instance the ground truth lists. */
const LOOKBACK_WINDOW = {
  from: new Date(Date.parse(ICS_WINDOW.start) - ICS_WINDOW.lookbackDays * DAY).toISOString(),
  days: ICS_WINDOW.days + ICS_WINDOW.lookbackDays,
};

Deno.test("`ParserPool.parseMail()` reads a fixture Maildir as its ground truth says", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "sync-test-" });
  const pool = new ParserPool();
  try {
    const truth = await writeMaildir(dir, { messages: 300, seed: 11 });
    const files = truth.messages.map((m) => Deno.readFileSync(join(dir, ...m.path.split("/"))));
    const results = await pool.parseMail(files);

    await t.step("one answer per file, in order", () => {
      assert.equal(results.length, truth.messages.length);
    });

    await t.step("Message-ID, In-Reply-To, References and sender as written", () => {
      for (const [i, message] of truth.messages.entries()) {
        const result = results[i];
        if (message.kind === "empty") {
          assert.deepEqual(result, { ok: false, reason: "the file is empty" });
          continue;
        }
        assert.ok(result.ok, `${message.path}: ${!result.ok && result.reason}`);
        assert.equal(result.value.messageId, message.messageId, message.path);
        assert.equal(result.value.from?.address, message.fromAddress, message.path);
        if (message.kind === "no-header-end") continue;
        assert.equal(result.value.inReplyTo, message.inReplyTo, message.path);
        assert.deepEqual(result.value.references, message.references, message.path);
        assert.equal(result.value.date, new Date(message.mtime * 1000).toISOString());
        assert.deepEqual(result.value.to.map((a) => a.address), [truth.owner]);
      }
    });

    await t.step("subjects decoded from encoded words (UTF-8 and ISO-8859-1, B and Q)", () => {
      let encoded = 0;
      for (const [i, message] of truth.messages.entries()) {
        const result = results[i];
        if (!result.ok || message.subject === null) continue;
        assert.equal(result.value.subject, message.subject, message.path);
        if (!/^[\x20-\x7e]*$/.test(message.subject)) encoded++;
      }
      assert.ok(encoded > 10, `only ${encoded} subjects needed encoded words`);
    });

    await t.step("text from every charset and transfer encoding starts with its first line", () => {
      const kinds = new Set<string>();
      for (const [i, message] of truth.messages.entries()) {
        const result = results[i];
        if (!result.ok || message.snippet === null || message.malformed) continue;
        assert.ok(
          result.value.text.startsWith(message.snippet),
          `${message.path} (${message.kind}, ${message.charset}): ${
            JSON.stringify(result.value.text.slice(0, 120))
          } does not start with ${JSON.stringify(message.snippet)}`,
        );
        kinds.add(message.kind);
      }
      for (const kind of ["plain-qp", "plain-base64", "latin1", "cp1252", "html-only", "nested"]) {
        assert.ok(kinds.has(kind), `no ${kind} message was checked`);
      }
    });

    await t.step("an HTML-only body is text: no tags, no script or style", () => {
      for (const [i, message] of truth.messages.entries()) {
        const result = results[i];
        if (!result.ok || (message.kind !== "html-only" && message.kind !== "newsletter")) continue;
        assert.doesNotMatch(result.value.text, /<\/?[a-z][^>]*>/i, message.path);
        assert.doesNotMatch(result.value.text, /&amp;|@media|{\s*color/, message.path);
      }
    });

    await t.step("attachments listed by name, type and decoded size, never their content", () => {
      let listed = 0;
      for (const [i, message] of truth.messages.entries()) {
        const result = results[i];
        if (!result.ok || message.kind !== "nested") continue;
        assert.deepEqual(
          result.value.attachments,
          message.attachments.map((a) => ({
            filename: a.filename,
            mimeType: a.mimeType,
            size: a.size,
          })),
          message.path,
        );
        listed += message.attachments.length;
      }
      assert.ok(listed > 0);
      assert.ok(JSON.stringify(results).length < files.reduce((n, f) => n + f.length, 0));
    });

    await t.step("malformed files: answered, never thrown, and the pool goes on", () => {
      for (const [i, message] of truth.messages.entries()) {
        if (!message.malformed) continue;
        const result = results[i];
        if (result.ok) assert.equal(typeof result.value.text, "string");
        else assert.match(result.reason, /\w+ \w+/);
      }
      assert.equal(pool.replacedWorkers, 0);
    });
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`ParserPool.parseMail()` answers an empty file as not read: it is no message", async () => {
  const pool = new ParserPool();
  try {
    const [empty, headerOnly] = await pool.parseMail([
      new Uint8Array(0),
      new TextEncoder().encode("Subject: only a header\n"),
    ]);
    assert.deepEqual(empty, { ok: false, reason: "the file is empty" });
    assert.ok(headerOnly.ok && headerOnly.value.subject === "only a header");
  } finally {
    pool.close();
  }
});

Deno.test("`ParserPool.parseMail()` cuts long text and says so", async () => {
  const pool = new ParserPool({ limits: { maxTextChars: 50 } });
  try {
    const body = "é".repeat(30) + "x".repeat(100);
    const [result] = await pool.parseMail([mail("Long", body)]);
    assert.ok(result.ok);
    assert.equal(result.value.text.length, 50);
    assert.equal(result.value.textCut, true);
    const [short] = await pool.parseMail([mail("Short", "hello")]);
    assert.ok(short.ok);
    assert.equal(short.value.textCut, false);
    assert.equal(short.value.text, "hello");
  } finally {
    pool.close();
  }
});

Deno.test("`ParserPool.parseMail()` turns an HTML-only body to text with `htmlToText()`", async () => {
  const pool = new ParserPool();
  try {
    const html = "<html><head><style>p { color: red }</style></head><body><p>Dear Ada,</p>" +
      "<ul><li>one</li><li>two</li></ul><script>track()</script>" +
      '<p>Read <a href="https://x.example/">the notes</a>.</p></body></html>';
    const bytes = new TextEncoder().encode(
      "From: a@example.org\r\nSubject: html\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" +
        html,
    );
    const [result] = await pool.parseMail([bytes]);
    assert.ok(result.ok);
    assert.equal(result.value.text, "Dear Ada,\n\n- one\n- two\n\nRead the notes.");
    assert.equal(result.value.textCut, false);
  } finally {
    pool.close();
  }
});

Deno.test("`ParserPool.parseCalendar()` expands a fixture calendar as its ground truth says", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "sync-test-" });
  const pool = new ParserPool();
  try {
    for (const shape of ["folder", "one file"] as const) {
      await t.step(`a calendar written as ${shape}`, async () => {
        const truth = shape === "folder"
          ? await writeIcsFolder(join(dir, "calendar"), { seed: 5, events: 30 })
          : await writeIcsFile(join(dir, "export.ics"), { seed: 5, events: 30 });
        const base = shape === "folder" ? join(dir, "calendar") : dir;
        const texts = truth.files.map((file) => Deno.readTextFileSync(join(base, file)));
        const results = await pool.parseCalendar(texts, LOOKBACK_WINDOW);
        const found = results.flatMap((result, i) => {
          assert.ok(result.ok, `${truth.files[i]}: ${!result.ok && result.reason}`);
          return result.value;
        });
        assert.equal(found.length, truth.instances.length);
        for (const instance of truth.instances) {
          const same = found.filter((event) =>
            event.uid === instance.uid && sameTime(event.start, instance.start, instance)
          );
          assert.equal(same.length, 1, `${instance.uid} at ${instance.start}`);
          const event = same[0];
          assert.ok(sameTime(event.end, instance.end, instance), `${instance.uid} end`);
          assert.equal(event.allDay, instance.allDay);
          assert.equal(event.summary, instance.summary);
          if (instance.recurrenceId === null) assert.equal(event.recurrenceId, null);
          else {
            assert.ok(
              sameTime(event.recurrenceId!, instance.recurrenceId, instance),
              `${instance.uid} recurrence ${event.recurrenceId} is ${instance.recurrenceId}`,
            );
          }
          const own = event.attendees.find((a) => a.address === truth.owner);
          assert.equal(own?.partstat ?? null, instance.ownerAnswer, instance.uid);
          assert.equal(event.status === "cancelled", instance.excluded === "cancelled");
        }
      });
    }

    await t.step("times carry the offset of their zone on each side of a DST change", async () => {
      const truth = await writeIcsFolder(join(dir, "dst"), { seed: 5, events: 0 });
      const text = Deno.readTextFileSync(join(dir, "dst", `standup-0001@calendar.example.org.ics`));
      assert.ok(truth.files.length > 0);
      const [result] = await pool.parseCalendar([text], LOOKBACK_WINDOW);
      assert.ok(result.ok);
      const starts = result.value.map((event) => event.start);
      assert.ok(starts.includes("2027-03-26T09:30:00+01:00"), starts.join(" "));
      assert.ok(starts.includes("2027-03-29T09:30:00+02:00"), starts.join(" "));
      // The EXDATE is no occurrence; the moved one is at its new time; the cancelled one is listed.
      assert.ok(!starts.includes("2027-03-10T09:30:00+01:00"));
      assert.ok(starts.includes("2027-03-16T11:00:00+01:00"));
      const cancelled = result.value.find((e) => e.start === "2027-03-18T09:30:00+01:00");
      assert.equal(cancelled?.status, "cancelled");
      assert.equal(result.value[0].timeZone, "Europe/Berlin");
      assert.equal(result.value[0].organizer?.address, "grace@example.com");
    });

    await t.step("a window that is none is refused, naming what is wrong", () => {
      assert.throws(() => pool.parseCalendar([], { from: "soon", days: 3 }), InvalidInputError);
      assert.throws(
        () => pool.parseCalendar([], { from: ICS_WINDOW.start, days: 0 }),
        (error: Error) => error instanceof InvalidInputError && /days must be/.test(error.message),
      );
    });
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`ParserPool` answers hostile files in words and is never taken down", async (t) => {
  const pool = new ParserPool();
  try {
    await t.step("a 30 MB file is refused unread, by its size", async () => {
      const big = new Uint8Array(30 * 1000 * 1000).fill(0x41);
      const [result] = await pool.parseMail([big]);
      assert.ok(!result.ok);
      assert.match(result.reason, /30,000,000 bytes; the most parsed is 26,214,400/);
    });

    await t.step("deeply nested multiparts are answered", async () => {
      let body = "innermost";
      // Built from the inside out: the part at each depth holds the one below it.
      for (let depth = 1_999; depth >= 0; depth--) {
        body = `--b${depth}\r\nContent-Type: multipart/mixed; boundary="b${depth + 1}"\r\n\r\n` +
          `${body}\r\n--b${depth}--\r\n`;
      }
      const bytes = new TextEncoder().encode(
        `Subject: deep\r\nContent-Type: multipart/mixed; boundary="b0"\r\n\r\n${body}`,
      );
      const [result] = await pool.parseMail([bytes]);
      assert.ok(!result.ok);
      assert.match(result.reason, /could not be read as a mail message: .*nest/i);
    });

    await t.step("garbage bytes are answered, mail and calendar alike", async () => {
      const garbage = new Uint8Array(200_000);
      for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 256;
      const [mailResult] = await pool.parseMail([garbage]);
      assert.equal(typeof mailResult.ok, "boolean");
      const [calendar] = await pool.parseCalendar(
        [new TextDecoder().decode(garbage)],
        LOOKBACK_WINDOW,
      );
      assert.ok(!calendar.ok);
      assert.match(calendar.reason, /could not be read as a calendar/);
    });

    await t.step("a rule repeating every second since 1970 stops at its step limit", async () => {
      const [result] = await pool.parseCalendar([SECONDLY], LOOKBACK_WINDOW);
      assert.ok(!result.ok);
      assert.match(
        result.reason,
        new RegExp(`repeats more than ${PARSER_LIMITS.maxRecurrenceSteps} times`),
      );
    });

    await t.step("a header of 1.5 MB is cut, not answered whole", async () => {
      const subject = "S".repeat(1_500_000);
      const name = "N".repeat(100_000);
      const bytes = new TextEncoder().encode(
        `Subject: ${subject}\r\nMessage-ID: <${"i".repeat(100_000)}@x>\r\n` +
          `From: "${name}" <ada@example.org>\r\n\r\nbody`,
      );
      const [result] = await pool.parseMail([bytes]);
      assert.ok(result.ok, !result.ok ? result.reason : "");
      assert.equal(result.value.subject, "S".repeat(PARSER_LIMITS.maxFieldChars));
      assert.equal(result.value.messageId?.length, PARSER_LIMITS.maxFieldChars);
      assert.equal(result.value.from?.name.length, PARSER_LIMITS.maxFieldChars);
      assert.equal(result.value.text, "body");
    });

    await t.step("a header of 100,000 encoded words is answered in words, at once", async () => {
      // postal-mime joins encoded words in time that grows faster than their
      // count: these would take it minutes, running on past the deadline.
      const replaced = pool.replacedWorkers;
      const bytes = new TextEncoder().encode(
        `Subject: ${"=?utf-8?B?QUJD?= ".repeat(100_000)}\r\n\r\nbody`,
      );
      const [result] = await pool.parseMail([bytes]);
      assert.ok(!result.ok);
      assert.match(
        result.reason,
        new RegExp(`holds more than ${PARSER_LIMITS.maxEncodedWords} encoded words`),
      );
      assert.equal(pool.replacedWorkers, replaced, "answered by the worker, not stopped");
    });

    await t.step("a calendar whose occurrences would answer gigabytes is refused", async () => {
      const replaced = pool.replacedWorkers;
      const attendees = Array.from(
        { length: 200 },
        (_, i) => `ATTENDEE;CN=${"a".repeat(20_000)}${i}:mailto:a${i}@example.org`,
      );
      const text = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "BEGIN:VEVENT",
        "UID:heavy@example.org",
        "DTSTART:20270101T090000Z",
        "DTEND:20270101T100000Z",
        "RRULE:FREQ=DAILY",
        ...attendees,
        "END:VEVENT",
        "END:VCALENDAR",
        "",
      ].join("\r\n");
      const [result] = await pool.parseCalendar([text], {
        from: "2027-01-01T00:00:00Z",
        days: 400,
      });
      assert.ok(!result.ok);
      assert.match(
        result.reason,
        new RegExp(`come to more than ${PARSER_LIMITS.maxResultChars} characters`),
      );
      assert.equal(pool.replacedWorkers, replaced, "answered by the worker, not stopped");
    });

    await t.step(
      "a time zone that changes every second since 1970 is answered in words",
      async () => {
        // Stopping a worker at its deadline does not stop a loop it is in: it
        // would go on growing until the process runs out of memory.
        const replaced = pool.replacedWorkers;
        const text = [
          "BEGIN:VCALENDAR",
          "VERSION:2.0",
          "BEGIN:VTIMEZONE",
          "TZID:Spin",
          "BEGIN:DAYLIGHT",
          "DTSTART:19700329T020000",
          "TZOFFSETFROM:+0100",
          "TZOFFSETTO:+0200",
          "RRULE:FREQ=SECONDLY",
          "END:DAYLIGHT",
          "END:VTIMEZONE",
          "BEGIN:VEVENT",
          "UID:spin-zone@example.org",
          "DTSTART;TZID=Spin:20270105T100000",
          "END:VEVENT",
          "END:VCALENDAR",
          "",
        ].join("\r\n");
        const [result] = await pool.parseCalendar([text], LOOKBACK_WINDOW);
        assert.ok(!result.ok);
        assert.match(
          result.reason,
          new RegExp(`its time zones change more than ${PARSER_LIMITS.maxRecurrenceSteps} times`),
        );
        assert.equal(pool.replacedWorkers, replaced, "answered by the worker, not stopped");
      },
    );

    await t.step("the pool still parses after all of them", async () => {
      const [result] = await pool.parseMail([mail("After", "still here")]);
      assert.ok(result.ok);
      assert.equal(result.value.text, "still here");
    });
  } finally {
    pool.close();
  }
});

Deno.test("`ParserPool` stops a parse past its deadline and replaces the worker", async (t) => {
  // A rule repeating every second since 1970, with a test-only step limit
  // that lets it run: the parse would take hours; the deadline ends it.
  const pool = new ParserPool({ limits: { jobTimeoutMs: 1_000, maxRecurrenceSteps: 1e12 } });
  try {
    await t.step("the hanging file is answered as stopped, in words", async () => {
      const started = performance.now();
      const [result] = await pool.parseCalendar([SECONDLY], LOOKBACK_WINDOW);
      assert.ok(!result.ok);
      assert.match(result.reason, /did not finish within 1000 ms and was stopped/);
      assert.equal(pool.replacedWorkers, 1);
      assert.ok(performance.now() - started < 5_000);
    });

    await t.step("the files after it are answered by the new worker", async () => {
      const results = await pool.parseMail([mail("One", "a"), mail("Two", "b")]);
      assert.deepEqual(results.map((r) => r.ok && r.value.subject), ["One", "Two"]);
    });
  } finally {
    pool.close();
  }
});

Deno.test("`ParserPool` stops parses whose memory grows past its limit, before V8 runs out", async (t) => {
  // A test-only limit far below what a 20 MB message takes to parse.
  const pool = new ParserPool({ limits: { maxMemoryGrowthBytes: 16 * 1024 * 1024 } });
  try {
    await t.step("the file is answered as stopped, naming the memory", async () => {
      const [result] = await pool.parseMail([mail("Heavy", "a".repeat(20_000_000))]);
      assert.ok(!result.ok);
      assert.match(result.reason, /memory grew past 16 MiB while it ran/);
      assert.equal(pool.replacedWorkers, 1);
    });

    await t.step("the pool goes on with a new worker", async () => {
      const [result] = await pool.parseMail([mail("Light", "b")]);
      assert.ok(result.ok);
      assert.equal(result.value.text, "b");
    });
  } finally {
    pool.close();
  }
});

Deno.test("`ParserPool` runs at most min(2, cores) workers, each with no permissions", async () => {
  const pool = new ParserPool();
  try {
    assert.equal(pool.size, Math.min(2, navigator.hardwareConcurrency));
    const results = await pool.parseMail(
      Array.from({ length: 10 }, (_, i) => mail(`M${i}`, `body ${i}`)),
    );
    assert.deepEqual(results.map((r) => r.ok && r.value.subject), results.map((_, i) => `M${i}`));
  } finally {
    pool.close();
  }
});

Deno.test("`ParserPool.close()` answers waiting files rather than leave them hanging", async () => {
  const pool = new ParserPool({ limits: { maxWorkers: 1 } });
  const pending = pool.parseMail([mail("A", "a"), mail("B", "b"), mail("C", "c")]);
  pool.close();
  const results = await pending;
  assert.equal(results.length, 3);
  for (const result of results) {
    if (!result.ok) assert.match(result.reason, /parsers (are|were) closed/);
  }
});

/** An event repeating every second since 1970. */
const SECONDLY = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "BEGIN:VEVENT",
  "UID:spin@example.org",
  "DTSTART:19700101T000000Z",
  "DTEND:19700101T000001Z",
  "RRULE:FREQ=SECONDLY",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");

/** One plain UTF-8 message. */
function mail(subject: string, body: string): Uint8Array {
  return new TextEncoder().encode(
    `From: Ada <ada@example.org>\r\nTo: grace@example.com\r\nSubject: ${subject}\r\n` +
      `Message-ID: <${subject}@example.org>\r\nDate: Mon, 1 Mar 2027 10:00:00 +0000\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\n\r\n${body}`,
  );
}

/** Whether a parsed time is the ground truth's: the same instant, or the same wall clock. */
function sameTime(parsed: string, truth: string, instance: { allDay: boolean; floating: boolean }) {
  if (instance.allDay || instance.floating) return parsed === truth;
  return Date.parse(parsed) === Date.parse(truth);
}
