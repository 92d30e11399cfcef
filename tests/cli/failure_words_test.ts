import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runSync } from "../internal/cli.ts";
import { writePackage } from "../internal/packages.ts";

/** A package whose handlers fail in each way a person meets: a throw, at opening, at removal. */
const GRUMPY = {
  id: "grumpy",
  handlers: ["grumpy.fail", "grumpy.look", "grumpy.cleanup"],
  service: `export default function register() {
  return {
    "grumpy.fail": () => { throw new TypeError("no tracker configured"); },
    "grumpy.look": () => { throw new Error("the tracker is down"); },
    "grumpy.cleanup": () => { throw new Error("cannot unsubscribe"); },
  };
}`,
  manifest: { lifecycle: { opened: "grumpy.look", removed: "grumpy.cleanup" } },
};

/**
 * An error class name where a person starts reading: at the start of a line,
 * or right after the `sync <command>:` that leads a failure.
 */
const CLASS_NAME_FIRST = /^(?:\s*sync [a-z]+: )?\s*\(?[A-Z]\w*Error: /;

/** Fails when any line of what the command wrote starts with an error class name. */
function assertWords(run: CliResult, what: string): void {
  for (const line of `${run.stdout}\n${run.stderr}`.split("\n")) {
    assert.doesNotMatch(line, CLASS_NAME_FIRST, `${what} printed: ${line}`);
  }
}

Deno.test("`runCli()` starts every failure with what happened, in words", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-cli-words-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args);
  try {
    const folder = await writePackage(join(root, "packages"), GRUMPY);
    const installed = await sync("install", folder, "--project", project, "--approve");
    assert.equal(installed.code, 0, installed.stderr);

    await t.step("failing commands, each its own process, lead with words", async () => {
      const failing: [string, string[], RegExp][] = [
        [
          "a handler that throws",
          ["call", "grumpy", "grumpy.fail", "--project", project],
          /^sync call: Handler grumpy\.fail failed: no tracker configured$/m,
        ],
        [
          "a handler that is not there",
          ["call", "grumpy", "grumpy.nothing", "--project", project],
          /^sync call: grumpy has no handler grumpy\.nothing/m,
        ],
        [
          "a payload that is not JSON",
          ["call", "grumpy", "grumpy.fail", "--project", project, "--payload", "{"],
          /^sync call: --payload is not JSON/m,
        ],
        [
          "a project that is not there",
          ["list", "--project", join(root, "nope")],
          /^sync list: Cannot open project /m,
        ],
        [
          "a package that is not installed",
          ["remove", "nothing", "--project", project],
          /^sync remove: nothing is not installed in /m,
        ],
        [
          "a record key with no kind",
          ["write", "--project", project, "--key", "bad"],
          /^sync write: Invalid record key "bad"/m,
        ],
        [
          "a package folder that is not there",
          ["check", join(root, "nope")],
          /^sync check: Cannot check /m,
        ],
        [
          "a build of a folder that is not there",
          ["build", join(root, "nope")],
          /^sync build: Cannot build /m,
        ],
        [
          "a removed handler that fails",
          ["remove", "grumpy", "--project", project],
          /^sync remove: Cannot remove grumpy from .*: its removed handler grumpy\.cleanup failed: Handler grumpy\.cleanup failed: cannot unsubscribe$/m,
        ],
      ];
      for (const [what, args, said] of failing) {
        const run = await sync(...args);
        assert.notEqual(run.code, 0, `${what}: sync ${args.join(" ")} exited 0`);
        assert.match(run.stderr, said, what);
        assertWords(run, what);
      }
    });

    await t.step("what failed before is said in words where it is shown again", async () => {
      const opened = await sync("open", "--project", project);
      assert.equal(opened.code, 0, opened.stderr);
      assert.match(
        opened.stderr,
        /^ {2}grumpy\.look \(opened\) failed: Handler grumpy\.look failed: the tracker is down$/m,
      );
      assertWords(opened, "open");

      const receipts = await sync("receipts", "--project", project);
      assert.equal(receipts.code, 0, receipts.stderr);
      assert.match(
        receipts.stdout,
        / {2}failed {2}grumpy\.fail \(sync call, \d+ ms\) {2}Handler grumpy\.fail failed: no tracker configured$/m,
      );
      assert.doesNotMatch(receipts.stdout, /[A-Z]\w*Error: Handler/);
      assertWords(receipts, "receipts");

      const forced = await sync("remove", "grumpy", "--project", project, "--force");
      assert.equal(forced.code, 0, forced.stderr);
      assert.match(
        forced.stderr,
        /^Its removed handler grumpy\.cleanup failed: Handler grumpy\.cleanup failed: cannot unsubscribe; removed anyway/m,
      );
      assertWords(forced, "remove --force");
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
