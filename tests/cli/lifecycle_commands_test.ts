import assert from "node:assert/strict";
import { join } from "node:path";
import { runSync } from "../internal/cli.ts";
import { writePackage } from "../internal/packages.ts";

/** Lifecycle handlers that note each moment; the removed one always fails. */
const WATCHER = {
  id: "watcher",
  handlers: ["watcher.setup", "watcher.cleanup", "watcher.look"],
  service: `import { memory } from "@sync/extension-api/service";
function handler(moment) {
  return async () => {
    const { records } = await memory.list({ kind: "watcher.seen" });
    await memory.write({ key: "watcher.seen/" + moment + "-" + records.length, title: moment });
  };
}
export default function register() {
  return {
    "watcher.setup": handler("installed"),
    "watcher.cleanup": async () => { throw new Error("cannot reach the tracker to unsubscribe"); },
    "watcher.look": handler("opened"),
  };
}`,
  manifest: {
    lifecycle: { installed: "watcher.setup", removed: "watcher.cleanup", opened: "watcher.look" },
  },
};

Deno.test("`sync open`, `sync install` and `sync remove` run lifecycle handlers", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-lifecycle-cli-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args);
  try {
    const folder = await writePackage(join(root, "packages"), WATCHER);

    await t.step("install says its installed handler ran", async () => {
      const result = await sync("install", folder, "--project", project, "--approve");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Ran its installed handler watcher\.setup: ok/);
    });

    await t.step("open runs the opened handler and says so", async () => {
      const result = await sync("open", "--project", project);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Opened .*project: 1 installed \(watcher\)\n/);
      assert.match(result.stdout, /watcher\.look \(opened\): ok/);
      const receipts = await sync("receipts", "--project", project, "--json");
      const moments = receipts.stdout.trim().split("\n").map((line) =>
        JSON.parse(line).occasion.moment
      );
      assert.deepEqual(moments, ["opened", "installed"]);
    });

    await t.step("`sync call` refuses the installed and removed handlers", async () => {
      for (
        const [handler, moment] of [["watcher.setup", "installed"], ["watcher.cleanup", "removed"]]
      ) {
        const result = await sync("call", "watcher", handler, "--project", project);
        assert.equal(result.code, 2, result.stdout);
        assert.match(
          result.stderr,
          new RegExp(
            `^sync call: Sync runs ${handler} when Watcher is ${moment}; it is not run by hand`,
          ),
        );
      }
      const receipts = await sync("receipts", "--project", project, "--json");
      assert.equal(
        receipts.stdout.trim().split("\n").length,
        2,
        "a refused call leaves no receipt",
      );
    });

    await t.step("remove is refused when the removed handler fails", async () => {
      const result = await sync("remove", "watcher", "--project", project);
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /Cannot remove watcher from .*: its removed handler watcher\.cleanup failed: .*cannot reach the tracker to unsubscribe/,
      );
      // The command to type is whole: the id, the project and the flag.
      assert.match(
        result.stderr,
        /\nTo remove it anyway: sync remove watcher --project \/.* --force$/m,
      );
      const list = await sync("list", "--project", project);
      assert.match(list.stdout, /watcher/);
    });

    await t.step("remove --force removes it and reports the failure", async () => {
      const result = await sync("remove", "watcher", "--project", project, "--force");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /watcher\.cleanup failed: .*removed anyway \(--force\)/);
      const list = await sync("list", "--project", project);
      assert.equal(list.stdout.trim(), "Nothing is installed in this project.");
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test(
  "`sync open` and `sync install` refuse the folders the app refuses: the filesystem root and the home folder",
  async (t) => {
    const root = await Deno.makeTempDir({ prefix: "sync-openable-cli-" });
    const home = join(root, "sync-home");
    const userHome = join(root, "person");
    await Deno.mkdir(userHome);
    const sync = (...args: string[]) => runSync(home, args, { env: { HOME: userHome } });
    try {
      const folder = await writePackage(join(root, "packages"), WATCHER);
      await t.step("open --project / is refused, naming the filesystem root", async () => {
        const result = await sync("open", "--project", "/");
        assert.equal(result.code, 2, result.stdout);
        assert.match(result.stderr, /Cannot open \/ as a project: it is the filesystem root/);
      });
      await t.step("open and install into the home folder are refused, naming it", async () => {
        const opened = await sync("open", "--project", userHome);
        assert.equal(opened.code, 2, opened.stdout);
        assert.match(opened.stderr, /it is your home folder/);
        const installed = await sync("install", folder, "--project", userHome, "--approve");
        assert.equal(installed.code, 2, installed.stdout);
        assert.match(installed.stderr, /it is your home folder/);
        assert.equal(await exists(join(userHome, ".sync")), false);
      });
      await t.step("install --project / is refused before anything is written there", async () => {
        const hadSync = await exists("/.sync");
        const result = await sync("install", folder, "--project", "/", "--approve");
        assert.equal(result.code, 2, result.stdout);
        assert.match(result.stderr, /it is the filesystem root/);
        assert.equal(await exists("/.sync"), hadSync);
      });
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test(
  "a project folder whose path is too long to key the installation by is refused by name, never a crash or a lost receipt",
  async (t) => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-long-path-" }));
    const home = join(root, "home");
    const sync = (...args: string[]) => runSync(home, args);
    // Nine levels of 240 characters: a path the system allows, over 2,000 bytes.
    let deep = root;
    for (let i = 0; i < 9; i++) deep = join(deep, "d".repeat(240));
    await Deno.mkdir(deep, { recursive: true });
    try {
      const folder = await writePackage(join(root, "packages"), WATCHER);
      const refused = /path is \d+ bytes long; a project's path may be at most 1024 bytes/;
      for (
        const args of [
          ["install", folder, "--project", deep, "--approve"],
          ["open", "--project", deep],
          ["call", "watcher", "watcher.look", "--project", deep],
          ["receipts", "--project", deep],
          ["records", "--project", deep],
        ]
      ) {
        await t.step(`sync ${args[0]} refuses it, saying why`, async () => {
          const result = await sync(...args);
          assert.equal(result.code, 2, result.stdout + result.stderr);
          assert.match(result.stderr, refused);
          assert.doesNotMatch(result.stderr, /unexpected failure|Key too large/);
        });
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);

Deno.test(
  "`sync install` into a project whose .sync is a link writes nothing where the link points",
  async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-linked-cli-" }));
    const home = join(root, "home");
    const project = join(root, "cloned");
    const elsewhere = join(root, "elsewhere");
    await Deno.mkdir(project);
    await Deno.mkdir(elsewhere);
    await Deno.symlink(elsewhere, join(project, ".sync"));
    try {
      const folder = await writePackage(join(root, "packages"), WATCHER);
      const result = await runSync(home, ["install", folder, "--project", project, "--approve"]);
      assert.notEqual(result.code, 0, result.stdout);
      assert.match(result.stderr, /\.sync is a link/);
      assert.doesNotMatch(result.stderr, /unexpected failure/);
      assert.deepEqual([...Deno.readDirSync(elsewhere)], []);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);
