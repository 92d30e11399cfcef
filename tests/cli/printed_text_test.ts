import assert from "node:assert/strict";
import { join } from "node:path";
import { runSync } from "../internal/cli.ts";

/** The hostile package: its texts try to forge lines, retitle the terminal and reorder text. */
const FORGER = "tests/fixtures/hostile/forged-lines";
const FORGED = "a\n[other] forged line\u001b]0;title\u0007";
const OVERWRITE = "b\r[other] overwritten \u009b31mred\u202eevil\u202c\u2028next\u007f";

// What must never reach a terminal raw: C0 but newline and tab, DEL, C1, the
// Unicode line and paragraph separators, and bidirectional overrides and isolates.
const UNPRINTABLE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Asserts `text` holds nothing a terminal would act on, and no line another package could own. */
function assertPrintedSafely(text: string, what: string): void {
  const raw = text.match(UNPRINTABLE);
  assert.equal(raw, null, `${what} prints U+${raw?.[0].codePointAt(0)?.toString(16)} raw`);
  for (const line of text.split("\n")) {
    assert.ok(!line.startsWith("[other]"), `${what} prints a forged line: ${line}`);
  }
}

Deno.test("what a package sends is printed escaped, one entry a line, and stored as it was sent", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-printed-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args);
  try {
    const install = await sync("install", FORGER, "--project", project, "--approve");
    assert.equal(install.code, 0, install.stderr);

    await t.step(
      "`sync call`: each console entry is one [forger] line; the answer is the JSON sent",
      async () => {
        const result = await sync("call", "forger", "forger.log", "--project", project);
        assert.equal(result.code, 0, result.stderr);
        assertPrintedSafely(result.stderr, "the console lines");
        assertPrintedSafely(result.stdout, "the answer");
        const logged = result.stderr.split("\n").filter((line) => line.startsWith("[forger]"));
        assert.deepEqual(logged, [
          String.raw`[forger] a\n[other] forged line\u001b]0;title\u0007`,
          String
            .raw`[forger] error: b\r[other] overwritten \u009b31mred\u202eevil\u202c\u2028next\u007f`,
        ]);
        assert.deepEqual(JSON.parse(result.stdout), { forged: FORGED, overwrite: OVERWRITE });
      },
    );

    await t.step(
      "`sync records` prints JSON that reads back to the record as written",
      async () => {
        const result = await sync("records", "--project", project, "--kind", "forger.note");
        assert.equal(result.code, 0, result.stderr);
        assertPrintedSafely(result.stdout, "the records");
        const [record] = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
        assert.equal(record.title, FORGED);
        assert.deepEqual(record.fields, { text: OVERWRITE });
      },
    );

    await t.step(
      "`sync call` of a handler that throws prints its message on one line",
      async () => {
        const result = await sync("call", "forger", "forger.fail", "--project", project);
        assert.equal(result.code, 1);
        assertPrintedSafely(result.stderr, "the failure");
        assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
        assert.match(
          result.stderr,
          /^sync call: .*a\\n\[other\] forged line\\u001b/,
        );
      },
    );

    await t.step("`sync receipts` shows the error escaped; --json keeps it exactly", async () => {
      const text = await sync("receipts", "--project", project);
      assert.equal(text.code, 0, text.stderr);
      assertPrintedSafely(text.stdout, "the receipts");
      assert.equal(text.stdout.trim().split("\n").length, 2, text.stdout);
      assert.ok(text.stdout.includes(String.raw`\u202eevil\u202c\u2028next\u007f`), text.stdout);

      const json = await sync("receipts", "--project", project, "--json", "--limit", "1");
      assertPrintedSafely(json.stdout, "the receipts as JSON");
      const [receipt] = json.stdout.trim().split("\n").map((line) => JSON.parse(line));
      assert.ok(receipt.error.message.includes(`${FORGED} ${OVERWRITE}`), receipt.error.message);
    });

    await t.step("`sync list` and `sync schedule` show the manifest's texts escaped", async () => {
      const list = await sync("list", "--project", project);
      assert.equal(list.code, 0, list.stderr);
      assertPrintedSafely(list.stdout, "the list");
      assert.ok(list.stdout.includes(String.raw`Forger\u001b]0;pwned\u0007\n[other] listed`));

      const schedule = await sync("schedule", "--project", project);
      assert.equal(schedule.code, 0, schedule.stderr);
      assertPrintedSafely(schedule.stdout, "the schedule");
      assert.ok(schedule.stdout.includes(String.raw`Fails\n[other] scheduled\u001b[2J\u202eevil`));
      const json = await sync("schedule", "--project", project, "--json");
      assertPrintedSafely(json.stdout, "the schedule as JSON");
      assert.equal(
        JSON.parse(json.stdout).description,
        "Fails\n[other] scheduled\u001b[2J\u202eevil",
      );
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
