import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT, runSync } from "../internal/cli.ts";

Deno.test("`runCli()` says what to do next when what a command names is not there", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-cli-not-found-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const real = await Deno.realPath(project);
  const sync = (...args: string[]) => runSync(home, args);
  try {
    await t.step("`call` of a package not installed: how to install it", async () => {
      const run = await sync("call", "hello", "hello.greet", "--project", project);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, "");
      assert.equal(
        run.stderr.trimEnd(),
        `sync call: hello is not installed in ${real} (nothing is installed ` +
          `there); install it with sync install <folder|archive> --project ${real}`,
      );
    });

    await t.step("a --project that is not there: check the path or create it", async () => {
      const missing = join(root, "nope");
      const run = await sync("list", "--project", missing);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr.trimEnd(),
        `sync list: Cannot open project ${missing}: the folder does not exist; ` +
          `check the path, or create the folder first`,
      );
    });

    await t.step("`chat keep` of a session that is not there: where they are listed", async () => {
      const run = await sync("chat", "keep", "work-nonexistent", "--project", project);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr.trimEnd(),
        `sync chat: There is no session work-nonexistent in ${real}; ` +
          `sync chat --project ${real} lists them`,
      );
    });

    await t.step("`install` of a package's manifest.json: give its folder", async () => {
      const folder = resolve(fileURLToPath(REPO_ROOT), "extensions/hello");
      const run = await sync("install", "extensions/hello/manifest.json", "--project", project);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /^sync install: Cannot unpack .*manifest\.json: it is not a recognised archive/,
      );
      assert.ok(
        run.stderr.trimEnd().endsWith(
          `; to install a package folder, give the folder that holds manifest.json (${folder})`,
        ),
        run.stderr,
      );
      const pkg = join(root, "pkg");
      await Deno.mkdir(pkg);
      await Deno.writeTextFile(join(pkg, "manifest.json"), "{}");
      await Deno.writeTextFile(join(pkg, "notes.txt"), "notes");
      const notes = await sync("install", join(pkg, "notes.txt"), "--project", project);
      assert.equal(notes.code, 1);
      assert.ok(notes.stderr.trimEnd().endsWith(`manifest.json (${pkg})`), notes.stderr);
    });

    await t.step(
      "a file refused as an archive outside a package folder: no such hint",
      async () => {
        const broken = join(root, "broken.tgz");
        await Deno.writeTextFile(broken, "not gzip");
        const run = await sync("install", broken, "--project", project);
        assert.equal(run.code, 1);
        assert.match(run.stderr, /Cannot unpack .*broken\.tgz: /);
        assert.ok(!run.stderr.includes("give the folder"), run.stderr);
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
