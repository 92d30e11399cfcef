import assert from "node:assert/strict";
import { join } from "node:path";
import {
  extensionsFilePath,
  readDeclaredIds,
  readProject,
  rememberProject,
  resolveProjectDir,
  writeDeclaredIds,
} from "../../runtime/projects/project.ts";
import { InvalidInputError, NotFoundError } from "../../runtime/errors.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);

/** A temp folder, removed after `run`. */
async function inTemp(run: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-project-" }));
  try {
    await run(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("`resolveProjectDir()` answers a project folder's real path", async (t) => {
  await inTemp(async (root) => {
    const project = join(root, "project");
    await Deno.mkdir(project);

    await t.step("a path with `..` in it, and a link to the folder, resolve to it", async () => {
      assert.equal(await resolveProjectDir(`${project}/../project`), project);
      await Deno.symlink(project, join(root, "link"));
      assert.equal(await resolveProjectDir(join(root, "link")), project);
    });

    await t.step("a folder that does not exist is not found", async () => {
      const missing = join(root, "missing");
      await rejectsWith(
        resolveProjectDir(missing),
        NotFoundError,
        `Cannot open project ${missing}: the folder does not exist; ` +
          `check the path, or create the folder first`,
      );
    });

    await t.step("a file is not a folder", async () => {
      const file = join(root, "notes.txt");
      await Deno.writeTextFile(file, "not a project");
      await rejectsWith(
        resolveProjectDir(file),
        NotFoundError,
        `Cannot open project ${file}: it is not a folder`,
      );
    });
  });
});

Deno.test("`readDeclaredIds()` reads `.sync/extensions.json`", async (t) => {
  await inTemp(async (project) => {
    const file = extensionsFilePath(project);

    await t.step("`extensionsFilePath()` is `.sync/extensions.json` in the project", () => {
      assert.equal(file, join(project, ".sync", "extensions.json"));
    });

    await t.step("a project without the file declares nothing", async () => {
      assert.deepEqual(await readDeclaredIds(project), []);
    });

    await t.step("the ids are read in their order, each once", async () => {
      await Deno.mkdir(join(project, ".sync"));
      await Deno.writeTextFile(file, '{ "extensions": ["mail", "issues", "mail"] }');
      assert.deepEqual(await readDeclaredIds(project), ["mail", "issues"]);
    });

    await t.step("a file that is not JSON is refused, saying why", async () => {
      const text = '{ "extensions": ["mail", }';
      await Deno.writeTextFile(file, text);
      let parseError = "";
      try {
        JSON.parse(text);
      } catch (error) {
        parseError = (error as Error).message;
      }
      await rejectsWith(
        readDeclaredIds(project),
        InvalidInputError,
        `${file} is not JSON: ${parseError}`,
      );
    });

    await t.step("JSON of another shape is refused, saying the shape", async () => {
      const shape = `${file} must be { "extensions": ["<id>", …] }; fix or delete the file`;
      for (
        const text of [
          "null",
          '["mail"]',
          "{}",
          '{ "extensions": "mail" }',
          '{ "extensions": ["mail", 7] }',
          '{ "extensions": ["mail", ""] }',
        ]
      ) {
        await Deno.writeTextFile(file, text);
        await rejectsWith(readDeclaredIds(project), InvalidInputError, shape);
      }
    });

    await t.step("a name no package can have is refused by name, inherited ones too", async () => {
      await Deno.writeTextFile(file, '{ "extensions": ["__proto__", "hello", "constructor"] }');
      await rejectsWith(
        readDeclaredIds(project),
        InvalidInputError,
        new RegExp(
          `^${RegExp.escape(file)} lists "__proto__" is not a package id: .*; "constructor" is ` +
            "not a package id: every JavaScript object has a property of that name; fix or delete",
        ),
      );
    });

    await t.step("a link, a FIFO or an oversized file is refused, not read", async () => {
      await Deno.remove(file);
      await Deno.symlink("/dev/zero", file);
      await rejectsWith(
        readDeclaredIds(project),
        InvalidInputError,
        /is not a plain file \(it is a link\)/,
      );
      await Deno.remove(file);
      const { success } = await new Deno.Command("mkfifo", { args: [file] }).output();
      assert.ok(success, "mkfifo");
      await rejectsWith(readDeclaredIds(project), InvalidInputError, /is not a plain file/);
      await Deno.remove(file);
      await Deno.writeTextFile(file, `{ "extensions": ["mail"], "pad": "${"x".repeat(300_000)}" }`);
      await rejectsWith(readDeclaredIds(project), InvalidInputError, /is larger than 262144 bytes/);
    });
  });
});

Deno.test("`writeDeclaredIds()` writes the ids sorted, each once", async (t) => {
  await inTemp(async (project) => {
    await t.step("it makes `.sync` and writes the file a person can read", async () => {
      await writeDeclaredIds(project, ["mail", "issues", "mail"]);
      assert.equal(
        await Deno.readTextFile(extensionsFilePath(project)),
        '{\n  "extensions": [\n    "issues",\n    "mail"\n  ]\n}\n',
      );
      assert.deepEqual(await readDeclaredIds(project), ["issues", "mail"]);
    });

    await t.step("it replaces the file whole and leaves no temp file", async () => {
      await writeDeclaredIds(project, []);
      assert.deepEqual(await readDeclaredIds(project), []);
      const names = [];
      for await (const entry of Deno.readDir(join(project, ".sync"))) names.push(entry.name);
      assert.deepEqual(names, ["extensions.json"]);
    });
  });
});

Deno.test("`rememberProject()` keeps what a project declared when it was opened", async (t) => {
  await inTemp(async (root) => {
    using kv = await Deno.openKv(":memory:");
    const project = join(root, "project");
    await Deno.mkdir(project);
    await writeDeclaredIds(project, ["mail", "issues"]);

    await t.step("`readProject()` answers null for a project never opened", async () => {
      assert.equal(await readProject(kv, project), null);
    });

    await t.step("it remembers the real path, the ids and when", async () => {
      const info = await rememberProject(kv, `${project}/../project`, { now: () => T0 });
      const expected = {
        path: project,
        extensionIds: ["issues", "mail"],
        openedAt: new Date(T0).toISOString(),
      };
      assert.deepEqual(info, expected);
      assert.deepEqual(await readProject(kv, project), expected);
    });

    await t.step("a later opening replaces it", async () => {
      await writeDeclaredIds(project, ["mail"]);
      const info = await rememberProject(kv, project, { now: () => T0 + 1_000 });
      assert.deepEqual(info.extensionIds, ["mail"]);
      assert.deepEqual(await readProject(kv, project), info);
    });

    await t.step("an older opening that finishes late does not overwrite it", async () => {
      const newest = await readProject(kv, project);
      await writeDeclaredIds(project, []);
      const info = await rememberProject(kv, project, { now: () => T0 + 500 });
      assert.deepEqual(info, newest, "it answers what is remembered");
      assert.deepEqual(await readProject(kv, project), newest);
    });

    await t.step("a folder that does not exist is not found, and nothing is kept", async () => {
      const missing = join(root, "missing");
      await rejectsWith(
        rememberProject(kv, missing, { now: () => T0 }),
        NotFoundError,
        `Cannot open project ${missing}: the folder does not exist; ` +
          `check the path, or create the folder first`,
      );
      assert.equal(await readProject(kv, missing), null);
    });

    await t.step("a malformed file is refused, and what was remembered stays", async () => {
      const before = await readProject(kv, project);
      await Deno.writeTextFile(extensionsFilePath(project), '{ "extensions": [1] }');
      await rejectsWith(
        rememberProject(kv, project, { now: () => T0 + 2_000 }),
        InvalidInputError,
        `${
          extensionsFilePath(project)
        } must be { "extensions": ["<id>", …] }; fix or delete the file`,
      );
      assert.deepEqual(await readProject(kv, project), before);
    });
  });
});
