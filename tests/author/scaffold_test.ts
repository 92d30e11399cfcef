import assert from "node:assert/strict";
import { join } from "node:path";
import { InvalidInputError } from "../../runtime/errors.ts";
import { parseManifest } from "../../runtime/packages/manifest.ts";
import { buildPackage } from "../../runtime/author/build.ts";
import { checkPackage } from "../../runtime/author/check/check.ts";
import {
  API_MODULE_URL,
  scaffoldPackage,
  SCREEN_API_MODULE_URL,
} from "../../runtime/author/scaffold.ts";
import { SYNC_CHECKOUT } from "../../runtime/author/checkout.ts";
import { listRecords } from "../../runtime/memory/store.ts";
import { installFolder, runAuthor } from "../internal/author.ts";
import { exists } from "../internal/cli.ts";
import { testHost } from "../internal/packages.ts";

Deno.test("`scaffoldPackage()` creates a package that builds, installs and runs", async (t) => {
  const env = await testHost();
  const root = await Deno.makeTempDir({ prefix: "sync-new-" });
  try {
    const dir = join(root, "hello-world");
    const created = await scaffoldPackage("hello-world", dir);

    await t.step("writes the manifest, the source, a type, instructions, deno.json, README", () => {
      assert.deepEqual(created, {
        id: "hello-world",
        dir,
        handler: "hello-world.hello",
        files: [
          "manifest.json",
          "src/service.ts",
          "types/note.json",
          "prompt/instructions.md",
          "deno.json",
          "README.md",
        ],
      });
    });

    await t.step("the manifest is valid and declares the one handler", async () => {
      const manifest = parseManifest(await Deno.readTextFile(join(dir, "manifest.json")), dir);
      assert.equal(manifest.name, "Hello-world");
      assert.deepEqual(Object.keys(manifest.handlers), ["hello-world.hello"]);
      assert.deepEqual(manifest.permissions, ["background"]);
    });

    await t.step("deno.json maps the API import to this checkout's module", async () => {
      const config = JSON.parse(await Deno.readTextFile(join(dir, "deno.json")));
      assert.equal(config.imports["@sync/extension-api/service"], API_MODULE_URL);
      assert.ok(await exists(new URL(API_MODULE_URL).pathname));
    });

    await t.step("the source type-checks in its folder against ES globals only", async () => {
      const { code, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["check", "--quiet", "src/service.ts"],
        cwd: dir,
        env: { NO_COLOR: "1" },
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.equal(code, 0, new TextDecoder().decode(stderr));
    });

    await t.step("it passes check as created", async () => {
      const report = await checkPackage(dir);
      assert.deepEqual(report.problems, []);
      assert.equal(report.ok, true);
    });

    await t.step("it builds, installs and its handler writes its record", async () => {
      const { outputs } = await buildPackage(dir);
      assert.deepEqual(outputs.map((o) => o.output), ["service/index.js"]);
      await installFolder(env, dir);
      assert.deepEqual(await env.call("hello-world", "hello-world.hello", { name: "Ada" }), {
        key: "hello-world.note/1",
        greeting: "Hello, Ada!",
      });
      const { records } = await listRecords(await env.host.projectMemory(env.project), {
        kind: "hello-world.note",
      });
      assert.deepEqual(records.map((r) => [r.key, r.title, r.fields]), [
        ["hello-world.note/1", "Hello, Ada!", { name: "Ada", occasion: "extension" }],
      ]);
      assert.deepEqual(env.logs, ["[hello-world] wrote hello-world.note/1 (extension)"]);
    });
  } finally {
    await env.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`scaffoldPackage()` refuses a bad id and a folder in use", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-new-" });
  try {
    await t.step("an id with uppercase letters", async () => {
      await assert.rejects(
        () => scaffoldPackage("Hello", join(root, "Hello")),
        (error) =>
          error instanceof InvalidInputError &&
          error.message ===
            `Cannot create package "Hello": id: "Hello" has uppercase letters; ids are lowercase, like "hello"`,
      );
      assert.equal(await exists(join(root, "Hello")), false);
    });

    await t.step("an id Sync writes kinds under", async () => {
      await assert.rejects(
        () => scaffoldPackage("chat", join(root, "chat")),
        (error) =>
          error instanceof InvalidInputError &&
          error.message ===
            `Cannot create package "chat": id: the id chat is Sync's own: its records are the ` +
              `conversations Chat keeps (chat.conversation); choose another id`,
      );
      assert.equal(await exists(join(root, "chat")), false);
    });

    await t.step("an id too short", async () => {
      await assert.rejects(
        () => scaffoldPackage("x", join(root, "x")),
        /^InvalidInputError: Cannot create package "x": id: expected an id like "issues" \(2 to 40 characters/,
      );
    });

    await t.step("a folder that is not empty", async () => {
      const dir = join(root, "taken");
      await Deno.mkdir(dir);
      await Deno.writeTextFile(join(dir, "notes.txt"), "mine");
      await assert.rejects(
        () => scaffoldPackage("taken", dir),
        (error) =>
          error instanceof InvalidInputError &&
          error.message ===
            `Cannot create package taken in ${dir}: the folder is not empty; ` +
              `choose a new folder (deno task --cwd ${SYNC_CHECKOUT} new taken <dir>) ` +
              `or empty this one`,
      );
      assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["notes.txt"]);
    });

    await t.step("an empty folder is fine", async () => {
      const dir = join(root, "empty");
      await Deno.mkdir(dir);
      const created = await scaffoldPackage("empty", dir);
      assert.ok(await exists(join(dir, created.files[0])));
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** The output of a run that must have succeeded. */
function run0(run: { code: number; stdout: string; stderr: string }): string {
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

Deno.test("`sync new` creates <INIT_CWD>/<id> and says what to do next", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-new-cli-" });
  try {
    await t.step("exit 0, the files and the next steps", async () => {
      const run = await runAuthor(["new", "greeter"], root);
      assert.equal(run.code, 0, run.stderr);
      const dir = join(root, "greeter");
      assert.ok(await exists(join(dir, "src/service.ts")));
      assert.match(run.stdout, new RegExp(`^Created greeter in ${dir}:\n  manifest.json\n`));
      const checkout = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
      const task = `deno task --cwd ${checkout}`;
      assert.ok(run.stdout.includes(`  2. Check it:    ${task} check ${dir}\n`), run.stdout);
      assert.ok(
        run.stdout.includes(
          `${task} sync install ${dir} --project <project folder> --approve\n`,
        ),
        run.stdout,
      );
      assert.ok(run.stdout.includes(`${task} sync call greeter greeter.hello --project`));
    });

    await t.step("the check it prints runs as printed, from the author's folder", async () => {
      const line = run0(await runAuthor(["new", "printed"], root));
      const command = /2\. Check it: +deno task (.*)$/m.exec(line)![1].split(" ");
      const check = await new Deno.Command(Deno.execPath(), {
        args: ["task", ...command],
        cwd: root,
        env: { NO_COLOR: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(check.stdout);
      assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));
      assert.match(out, /: no problems\n$/);
    });

    await t.step("the same id again is refused, exit 2, nothing changed", async () => {
      const before = await Deno.readTextFile(join(root, "greeter/src/service.ts"));
      const run = await runAuthor(["new", "greeter"], root);
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /^sync new: Cannot create package greeter in .*greeter: the folder is not empty/,
      );
      assert.equal(await Deno.readTextFile(join(root, "greeter/src/service.ts")), before);
    });

    await t.step("no id is bad usage", async () => {
      const run = await runAuthor(["new"], root);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /sync new: needs a package id/);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** `deno check` of `files` run in `cwd`: its exit code and what it printed. */
async function denoCheck(cwd: string, files: string[]): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", ...files],
    cwd,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, out: new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr) };
}

Deno.test("`scaffoldPackage()` with a screen gives the DOM's types to the screen alone", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-new-screen-" });
  try {
    const dir = join(root, "board");
    const created = await scaffoldPackage("board", dir, { screen: true });

    await t.step("the screen is src/screen/, entered from src/index.tsx", async () => {
      assert.deepEqual(created.files.slice(-3), [
        "src/index.tsx",
        "src/screen/deno.json",
        "src/screen/index.tsx",
      ]);
      assert.match(
        await Deno.readTextFile(join(dir, "src/index.tsx")),
        /^export \{ activate \} from "\.\/screen\/index\.tsx";$/m,
      );
    });

    await t.step("the package's deno.json types the folder with ECMAScript alone", async () => {
      const config = JSON.parse(await Deno.readTextFile(join(dir, "deno.json")));
      assert.deepEqual(config.compilerOptions.lib, ["esnext"]);
      const screen = JSON.parse(await Deno.readTextFile(join(dir, "src/screen/deno.json")));
      assert.deepEqual(screen.compilerOptions.lib, ["esnext", "dom", "dom.iterable"]);
      assert.equal(screen.imports["@sync/extension-api/ui"], SCREEN_API_MODULE_URL);
    });

    await t.step("the screen type-checks in its folder", async () => {
      const { code, out } = await denoCheck(join(dir, "src/screen"), ["index.tsx"]);
      assert.equal(code, 0, out);
    });

    await t.step("it passes check as created", async () => {
      const report = await checkPackage(dir);
      assert.deepEqual(report.problems, []);
    });

    await t.step("setTimeout and fetch in src/service.ts are still type errors", async () => {
      await Deno.writeTextFile(
        join(dir, "src/service.ts"),
        'setTimeout(() => {}, 1);\nvoid fetch("https://example.com");\n',
        { append: true },
      );
      const { code, out } = await denoCheck(dir, ["src/service.ts"]);
      assert.equal(code, 1, out);
      assert.match(out, /Cannot find name 'setTimeout'/);
      assert.match(out, /Cannot find name 'fetch'/);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
