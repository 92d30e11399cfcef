import assert from "node:assert/strict";
import { join } from "node:path";
import {
  closingLines,
  KEPT_FILES,
  runHalves,
  runSuite,
  TEST_HALVES,
} from "../../runtime/dev/test_all.ts";

Deno.test("`runHalves()` runs every half and reports each, even after one failed", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-test-all-" });
  try {
    await Deno.writeTextFile(
      join(root, "fails_test.ts"),
      `Deno.test("fails", () => { throw new Error("on purpose"); });\n` +
        `Deno.test("passes", () => {});\n`,
    );
    await Deno.writeTextFile(
      join(root, "passes_test.ts"),
      `Deno.test("one", () => {});\nDeno.test("two", () => {});\n`,
    );
    const results = await runHalves([
      { name: "First", args: ["test", "--no-check", "fails_test.ts"] },
      { name: "Second", args: ["test", "--no-check", "passes_test.ts"] },
    ], { echo: false, cwd: root });

    await t.step("the second half ran though the first failed", () => {
      assert.deepEqual(results.map((r) => [r.name, r.code !== 0]), [
        ["First", true],
        ["Second", false],
      ]);
      assert.match(results[0].summary ?? "", /^FAILED \| 1 passed \| 1 failed/);
      assert.match(results[1].summary ?? "", /^ok \| 2 passed \| 0 failed/);
    });

    await t.step("the closing lines name each half, never leading with deno's own summary", () => {
      const lines = closingLines([
        ...results,
        { name: "Third", code: 70, summary: null },
      ]);
      assert.equal(lines.length, 3);
      assert.match(lines[0], /^First: FAILED \| 1 passed \| 1 failed/);
      assert.match(lines[1], /^Second: ok \| 2 passed \| 0 failed/);
      assert.equal(lines[2], "Third: ended with exit code 70 before deno test printed its summary");
      // .ci/run counts the lines that start with deno test's summary: each half once.
      for (const line of lines) assert.doesNotMatch(line, /^(ok|FAILED) \|/);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`runSuite()` gives the tests a temporary folder of their own and leaves nothing in the system's", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-test-suite-" });
  try {
    const system = join(root, "tmp");
    await Deno.mkdir(system);
    await Deno.writeTextFile(
      join(root, "litter_test.ts"),
      `Deno.test("litters", async () => {\n` +
        `  await Deno.makeTempDir({ prefix: "sync-litter-" });\n` +
        `  await Deno.mkdir(Deno.env.get("TMPDIR") + "/chromium");\n` +
        `  await Deno.writeTextFile(Deno.env.get("TMPDIR") + "/${KEPT_FILES[0]}", "{}");\n` +
        `  if (!Deno.env.get("SYNC_SCREENSHOTS")) throw new Error("no screenshot folder");\n` +
        `});\n`,
    );
    const { results, leftBehind } = await runSuite(
      [{ name: "Litter", args: ["test", "--no-check", "-A", "litter_test.ts"] }],
      { echo: false, cwd: root, systemTemp: system },
    );

    await t.step("what a test left is named, then removed with the folder", async () => {
      assert.equal(results[0].code, 0, results[0].summary ?? "no summary");
      assert.equal(leftBehind.length, 1);
      assert.match(leftBehind[0], /^sync-litter-/);
      const names = [];
      for await (const entry of Deno.readDir(system)) names.push(entry.name);
      // Only the file kept on purpose is in the system's temporary folder.
      assert.deepEqual(names, [KEPT_FILES[0]]);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`TEST_HALVES` runs the browser tests apart from the rest, and all of tests/", () => {
  const [rest, browser] = TEST_HALVES;
  assert.ok(rest.args.includes("--ignore=tests/browser/") && rest.args.includes("tests/"));
  assert.ok(!rest.args.includes("-A"), "the tests without a browser run without -A");
  assert.deepEqual(browser.args.slice(-2), ["-A", "tests/browser/"]);
});

const RUNNER = new URL("../../runtime/dev/test_all.ts", import.meta.url).pathname;

/** Starts `deno task test`'s runner as `deno task test` does, with `args` and its own TMPDIR. */
function startRunner(tmp: string, args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-run", RUNNER, ...args],
    env: { TMPDIR: tmp, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** The `sync-test-run-*` folders in `tmp`. */
async function runFolders(tmp: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(tmp)) {
    if (entry.name.startsWith("sync-test-run-")) found.push(entry.name);
  }
  return found;
}

Deno.test("`deno task test` says what it runs when asked, and cleans up when stopped", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "sync-test-all-run-" });
  try {
    await t.step("--help says what runs and how long it takes, and runs nothing", async () => {
      const { code, stdout } = await startRunner(tmp, ["--help"]).output();
      const text = new TextDecoder().decode(stdout);
      assert.equal(code, 0);
      assert.match(text, /tests\/browser\//);
      assert.match(text, /about 12 minutes on 2 cores/);
      assert.deepEqual(await runFolders(tmp), []);
    });

    await t.step("an unknown argument is refused with the usage", async () => {
      const { code, stderr } = await startRunner(tmp, ["--frobnicate"]).output();
      assert.equal(code, 2);
      assert.match(
        new TextDecoder().decode(stderr),
        /takes no arguments but --help, not: --frobnicate/,
      );
      assert.deepEqual(await runFolders(tmp), []);
    });

    await t.step("SIGTERM stops the running deno test and removes its folder", async () => {
      const runner = startRunner(tmp, []);
      const drained = Promise.all([
        runner.stdout.pipeTo(new WritableStream()),
        runner.stderr.pipeTo(new WritableStream()),
      ]);
      try {
        while ((await runFolders(tmp)).length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        runner.kill("SIGTERM");
        const { code } = await runner.status;
        assert.equal(code, 143);
        assert.deepEqual(await runFolders(tmp), []);
      } finally {
        try {
          runner.kill("SIGKILL");
        } catch { /* already ended */ }
        await runner.status;
        await drained;
      }
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
