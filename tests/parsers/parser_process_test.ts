import assert from "node:assert/strict";
import { join } from "node:path";
import { ParserPool } from "../../runtime/parsers/mod.ts";

/** An event repeating every second since 1970: with no step limit, hours of parsing. */
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

const WINDOW = { from: "2027-03-01T00:00:00Z", days: 30 };

Deno.test("`ParserPool` runs each parse in a child process it can end", async (t) => {
  const pool = new ParserPool({ limits: { jobTimeoutMs: 1_000, maxRecurrenceSteps: 1e12 } });
  const dir = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    await t.step(
      "a parse that loops forever is killed at its deadline: its pid is gone",
      async () => {
        const pending = pool.parseCalendar([SECONDLY], WINDOW);
        const started = await until(() => pool.pids.length > 0 ? pool.pids : null);
        assert.ok(running(started[0]), `child ${started[0]} is not running`);
        const [result] = await pending;
        assert.ok(!result.ok);
        assert.match(result.reason, /did not finish within 1000 ms and was stopped/);
        await until(() => running(started[0]) ? null : true);
        assert.ok(!pool.pids.includes(started[0]));
      },
    );

    await t.step("the pool parses the next file in a new child", async () => {
      const [result] = await pool.parseMail([mail("Next", "after the loop")]);
      assert.ok(result.ok);
      assert.equal(result.value.text, "after the loop");
    });

    await t.step("a child may read no file, not even one beside it", async () => {
      const path = join(dir, "secret.txt");
      await Deno.writeTextFile(path, "not for parsers");
      const [refused, bundle] = await Promise.all([
        pool.probeRead(path),
        pool.probeRead(new URL("../../workers/dist/parser_worker.js", import.meta.url).pathname),
      ]);
      for (const result of [refused, bundle]) {
        assert.ok(!result.ok, "the child read a file");
        assert.match(result.reason, /Requires read access/);
      }
    });

    await t.step("close() leaves no child: every pid is gone", async () => {
      const pids = pool.pids;
      assert.ok(pids.length > 0);
      pool.close();
      await until(() => pids.some(running) ? null : true);
      assert.deepEqual(pool.pids, []);
    });
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`ParserPool` ends a parse that allocates without end as out of memory", async (t) => {
  // Test-only limits that let an event repeating every second collect all of its
  // 34 million occurrences in the window: memory without end, but for the heap limit.
  const pool = new ParserPool({
    limits: {
      heapMiB: 32,
      jobTimeoutMs: 60_000,
      maxOccurrences: 1e12,
      maxRecurrenceSteps: 1e12,
      maxResultChars: 1e15,
    },
  });
  const growing = SECONDLY.replace("19700101T000000Z", "20270301T000000Z")
    .replace("19700101T000001Z", "20270301T000001Z");
  try {
    await t.step("its child ends, not this process, which stays within a bound", async () => {
      const before = Deno.memoryUsage().rss;
      let peak = before;
      const watch = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 20);
      const pending = pool.parseCalendar([growing], { from: "2027-03-01T00:00:00Z", days: 400 });
      const [pid] = await until(() => pool.pids.length > 0 ? pool.pids : null);
      const [result] = await pending;
      clearInterval(watch);
      assert.ok(!result.ok);
      assert.match(result.reason, /ran out of memory on it \(32 MiB\)/);
      await until(() => running(pid) ? null : true);
      const grown = peak - before;
      assert.ok(grown < 128 * 1024 * 1024, `this process grew ${grown} bytes`);
    });

    await t.step("the pool parses the next file in a new child", async () => {
      const [result] = await pool.parseMail([mail("Next", "after the heap")]);
      assert.ok(result.ok);
      assert.equal(result.value.text, "after the heap");
    });
  } finally {
    pool.close();
  }
});

/** Whether process `pid` runs: it is in /proc and no zombie. */
function running(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** Polls `check` until it answers something, failing after 10 s. */
async function until<T>(check: () => T | null): Promise<T> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const value = check();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the condition did not come true within 10 s");
}

/** One plain UTF-8 message. */
function mail(subject: string, body: string): Uint8Array {
  return new TextEncoder().encode(
    `From: Ada <ada@example.org>\r\nSubject: ${subject}\r\n\r\n${body}`,
  );
}
