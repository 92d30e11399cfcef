import assert from "node:assert/strict";
import { join } from "node:path";
import { sweepStaleStaging } from "../../runtime/packages/staging.ts";
import { packageArchive, REPO_ROOT, runSync, SYNC_RUN_ARGS } from "../internal/cli.ts";

/** An archive whose module never finishes loading, so install's check holds it in staging. */
const HANGING = packageArchive({
  id: "hang",
  version: "1.0.0",
  permissions: ["background"],
  handlers: ["hang.run"],
  service:
    `while (true) {}\nexport default function register() { return { "hang.run": () => 1 }; }`,
});

const CLEAN = packageArchive({
  id: "clean",
  version: "1.0.0",
  permissions: ["background"],
  handlers: ["clean.run"],
  service: `export default function register() { return { "clean.run": () => 1 }; }`,
});

/** The names under the store's staging folder; empty when it is gone. */
async function stagingEntries(home: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(home, "extensions", "store", ".staging"))) {
      names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

/** Starts `sync install <archive>` and waits until it has unpacked into staging. */
async function installUntilStaged(
  home: string,
  archive: string,
  project: string,
): Promise<Deno.ChildProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...SYNC_RUN_ARGS, "install", archive, "--project", project, "--approve"],
    cwd: REPO_ROOT,
    env: { SYNC_HOME: home, NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const until = Date.now() + 60_000;
  // Staged means unpacked: the folder has its own name (not `.<name>.unpacking-…`), and the
  // install holds there while its check runs.
  const staged = (name: string) => !name.endsWith(".lock") && !name.startsWith(".");
  while (!(await stagingEntries(home)).some(staged)) {
    if (Date.now() > until) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error("the install never staged its archive");
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}

Deno.test("staging left by an install killed with kill -9 is swept; staging in use is not", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-staging-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const hanging = join(root, "hang.tgz");
  const clean = join(root, "clean.tgz");
  await Deno.writeFile(hanging, HANGING);
  await Deno.writeFile(clean, CLEAN);
  try {
    await t.step("a killed install leaves its staging folder behind", async () => {
      const child = await installUntilStaged(home, hanging, project);
      child.kill("SIGKILL");
      await child.status;
      assert.notDeepEqual(await stagingEntries(home), []);
    });

    await t.step("the next install removes it", async () => {
      const result = await runSync(home, ["install", clean, "--project", project, "--approve"]);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(await stagingEntries(home), []);
    });

    await t.step(
      "staging an install is using is kept, and swept once that install is killed",
      async () => {
        const child = await installUntilStaged(home, hanging, project);
        try {
          // (Another `sync install` would wait for this one: one command owns the
          // installation at a time. The sweep is what it would run first.)
          const before = await stagingEntries(home);
          assert.deepEqual(await sweepStaleStaging(home), []);
          assert.deepEqual(await stagingEntries(home), before);
        } finally {
          child.kill("SIGKILL");
          await child.status;
        }
        const swept = await sweepStaleStaging(home);
        assert.equal(swept.length, 1, JSON.stringify(swept));
        assert.deepEqual(await stagingEntries(home), []);
      },
    );

    await t.step("serve removes it when it starts, and says so", async () => {
      const child = await installUntilStaged(home, hanging, project);
      child.kill("SIGKILL");
      await child.status;
      const left = (await stagingEntries(home)).filter((name) => !name.endsWith(".lock"));
      assert.equal(left.length, 1);
      const serve = new Deno.Command(Deno.execPath(), {
        args: [...SYNC_RUN_ARGS, "serve", "--port", "0"],
        cwd: REPO_ROOT,
        env: { SYNC_HOME: home, NO_COLOR: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const lines: string[] = [];
      try {
        let rest = "";
        for await (const chunk of serve.stdout.pipeThrough(new TextDecoderStream())) {
          const parts = (rest + chunk).split("\n");
          rest = parts.pop()!;
          lines.push(...parts);
          if (lines.some((line) => line.startsWith("Sync is serving at"))) break;
        }
      } finally {
        serve.kill("SIGKILL");
        await serve.status;
      }
      const owner = left[0].replace(/^\.(.+)\.unpacking-[0-9a-f-]+$/, "$1");
      assert.ok(
        lines.includes(
          `Removed ${join(home, "extensions", "store", ".staging", owner)}, left by an ` +
            "install that was stopped",
        ),
        JSON.stringify(lines),
      );
      assert.deepEqual(await stagingEntries(home), []);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
