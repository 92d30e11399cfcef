import assert from "node:assert/strict";
import { join } from "node:path";
import { runSync } from "../../internal/cli.ts";
import { writePackage } from "../../internal/packages.ts";

/** A handler that fails when asked to, beside one that always works. */
const FLAKY = {
  id: "flaky",
  handlers: ["flaky.poll", "flaky.fine"],
  service: `export default function register() {
  return {
    "flaky.poll": (p) => { if (p?.fail) throw new Error("the tracker answered 503"); return "ok"; },
    "flaky.fine": () => "fine",
  };
}`,
};

Deno.test("`sync list` shows each package's lamp and what a person must act on", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-list-cli-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args);
  const call = (handler: string, payload: unknown) =>
    sync("call", "flaky", handler, "--project", project, "--payload", JSON.stringify(payload));
  try {
    const folder = await writePackage(join(root, "packages"), FLAKY);
    const installed = await sync("install", folder, "--project", project, "--approve");
    assert.equal(installed.code, 0, installed.stderr);

    await t.step("a package that needs nothing: its lamp, steady, and no notice", async () => {
      const list = await sync("list", "--project", project);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /^flaky@1\.0\.0 .*approved\n {4}lamp: steady \(ready\)\n/);
      assert.doesNotMatch(list.stdout, /red:/);
    });

    await t.step("a handler failing its last three attempts: red, one line naming it", async () => {
      for (let i = 0; i < 3; i++) {
        assert.equal((await call("flaky.poll", { fail: true })).code, 1);
        assert.equal((await call("flaky.fine", {})).code, 0);
      }
      const list = await sync("list", "--project", project);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /^ {4}lamp: red \(needs you\)$/m);
      const notices = list.stdout.split("\n").filter((line) => line.startsWith("    red: "));
      assert.equal(notices.length, 1, list.stdout);
      assert.match(
        notices[0],
        /^ {4}red: Its handler flaky\.poll failed its last 3 attempts; .*the tracker answered 503\. Read its receipts/,
      );
    });

    await t.step("its next success clears it", async () => {
      assert.equal((await call("flaky.poll", { fail: false })).code, 0);
      const list = await sync("list", "--project", project);
      assert.match(list.stdout, /^ {4}lamp: steady \(ready\)$/m);
      assert.doesNotMatch(list.stdout, /red/);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
