import assert from "node:assert/strict";
import { join } from "node:path";
import { ProjectMemories } from "../../runtime/memory/project_memories.ts";
import { projectMemoryPath } from "../../runtime/memory/store.ts";
import { NotFoundError } from "../../runtime/errors.ts";
import { canListOpenFiles, deletedFilesHeldOpen } from "../internal/open_files.ts";
import { smallDisk } from "../internal/small_disk.ts";

async function isClosed(kv: Deno.Kv): Promise<boolean> {
  try {
    await kv.get(["probe"]);
    return false;
  } catch {
    return true;
  }
}

Deno.test("`ProjectMemories.open()` answers the memory of the folder at the path now", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-memories-" });
  const project = join(root, "project");
  await Deno.mkdir(project);
  const lines: string[] = [];
  const memories = new ProjectMemories({ log: (line) => lines.push(line) });
  try {
    const first = await memories.open(project);
    await first.set(["mark"], "first");

    await t.step("while the file is the one open, the same handle", async () => {
      assert.equal(await memories.open(project), first);
      assert.deepEqual(lines, []);
    });

    await t.step(
      "a file moved aside and another put there: the old handle is closed, the new file opened",
      async () => {
        await Deno.rename(join(project, ".sync"), join(root, "aside"));
        await Deno.mkdir(join(project, ".sync"));
        {
          using other = await Deno.openKv(projectMemoryPath(project));
          await other.set(["mark"], "other");
        }
        const second = await memories.open(project);
        assert.notEqual(second, first);
        assert.equal(await isClosed(first), true);
        assert.equal((await second.get(["mark"])).value, "other");
        assert.match(
          lines.join("\n"),
          /memory\.kv is another file now; the memory open under that name was closed/,
        );
      },
    );

    await t.step("many callers at once after a change open the new file once", async () => {
      const before = await memories.open(project);
      await Deno.remove(join(project, ".sync"), { recursive: true });
      const opened = await Promise.all(Array.from({ length: 10 }, () => memories.open(project)));
      assert.equal(new Set(opened).size, 1);
      assert.match(lines.at(-1)!, /memory\.kv is gone/);
      assert.notEqual(opened[0], before);
      assert.equal(await isClosed(before), true);
    });

    await t.step("a project folder that is gone is refused, and not made again", async () => {
      const gone = join(root, "gone");
      await assert.rejects(memories.open(gone), (error: Error) => {
        assert.ok(error instanceof NotFoundError, `${error.name}: ${error.message}`);
        assert.match(error.message, /The project folder .*gone is gone/);
        return true;
      });
      await assert.rejects(Deno.stat(gone), Deno.errors.NotFound);
    });

    await t.step("forget closes the memory; the next open opens it again", async () => {
      const held = await memories.open(project);
      await memories.forget(project);
      assert.equal(await isClosed(held), true);
      const again = await memories.open(project);
      assert.notEqual(again, held);
      assert.ok((await Deno.stat(projectMemoryPath(project))).isFile);
    });
  } finally {
    await memories.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`ProjectMemories` closes a memory as soon as its project folder is removed", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-memories-" });
  const project = join(root, "project");
  await Deno.mkdir(project);
  let closedAtOnce: () => void = () => {};
  const closed = new Promise<void>((resolve) => closedAtOnce = resolve);
  const memories = new ProjectMemories({
    log: (line) => {
      if (/memory\.kv is gone; the memory open under that name was closed at once/.test(line)) {
        closedAtOnce();
      }
    },
  });
  try {
    const memory = await memories.open(project);
    await memory.set(["mark"], "held");
    assert.equal(memories.holds(project), true);

    await t.step("removing the folder closes the memory, with no call to it", async () => {
      await Deno.remove(project, { recursive: true });
      await closed;
      assert.equal(memories.holds(project), false);
      assert.equal(await isClosed(memory), true);
    });

    if (await canListOpenFiles()) {
      await t.step("no file of the removed folder is held open", async () => {
        assert.deepEqual(await deletedFilesHeldOpen(root), []);
      });
    }

    await t.step("its own writes do not close it, and close() stops the watch", async () => {
      await Deno.mkdir(project);
      const again = await memories.open(project);
      for (let i = 0; i < 20; i++) await again.set(["n", i], i);
      assert.equal(await memories.open(project), again);
      await memories.close();
      assert.equal(await isClosed(again), true);
    });
  } finally {
    await memories.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`ProjectMemories` closes a memory when a folder above its project goes", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-memories-" });
  const waiting = new Set<() => void>();
  const memories = new ProjectMemories({
    log: (line) => {
      if (/memory\.kv is gone; the memory open under that name was closed at once/.test(line)) {
        for (const wake of waiting) wake();
      }
    },
  });
  /** Settles once `project` is no longer held, told by the log line that closes it. */
  const letGo = (project: string) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        if (memories.holds(project)) return;
        waiting.delete(wake);
        resolve();
      };
      waiting.add(wake);
    });
  try {
    await t.step("a folder two levels above removed: the memory is closed", async () => {
      const project = join(root, "removed", "a", "project");
      await Deno.mkdir(project, { recursive: true });
      const memory = await memories.open(project);
      await memory.set(["mark"], "held");
      const closed = letGo(project);
      await Deno.remove(join(root, "removed"), { recursive: true });
      await closed;
      assert.equal(await isClosed(memory), true);
      if (await canListOpenFiles()) assert.deepEqual(await deletedFilesHeldOpen(root), []);
    });

    await t.step("a folder two levels above moved: the memory is closed", async () => {
      const project = join(root, "moved", "a", "project");
      await Deno.mkdir(project, { recursive: true });
      const memory = await memories.open(project);
      await memory.set(["mark"], "held");
      const closed = letGo(project);
      await Deno.rename(join(root, "moved"), join(root, "elsewhere"));
      await closed;
      assert.equal(await isClosed(memory), true);
      // The moved memory is whole at its new place; opened there, it is that folder's.
      const there = await memories.open(join(root, "elsewhere", "a", "project"));
      assert.equal((await there.get(["mark"])).value, "held");
    });

    await t.step("a folder above changing beside the project leaves the memory open", async () => {
      const project = join(root, "kept", "project");
      await Deno.mkdir(project, { recursive: true });
      const memory = await memories.open(project);
      await Deno.mkdir(join(root, "kept", "beside"));
      await Deno.remove(join(root, "kept", "beside"));
      assert.equal(await memories.open(project), memory);
      assert.equal(await isClosed(memory), false);
    });
  } finally {
    await memories.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`ProjectMemories.open()` opens afresh a memory opened read-only once its disk is writable", async (t) => {
  const disk = await smallDisk(1024);
  if (typeof disk === "string") {
    await t.step({ name: `skipped: ${disk}`, ignore: true, fn: () => {} });
    return;
  }
  const project = join(disk.path, "project");
  await Deno.mkdir(join(project, ".sync"), { recursive: true });
  const lines: string[] = [];
  const memories = new ProjectMemories({ log: (line) => lines.push(line) });
  try {
    // A process that ended without closing its memory leaves SQLite's files
    // beside it; with them, Deno KV opens the file on a read-only disk
    // read-only, without a word.
    const ended = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        "--unstable-kv",
        `const kv = await Deno.openKv(${JSON.stringify(projectMemoryPath(project))});` +
        `await kv.set(["mark"], "before"); Deno.exit(0);`,
      ],
    }).output();
    assert.equal(ended.success, true, new TextDecoder().decode(ended.stderr));
    await disk.remount("ro");
    let readOnly: Deno.Kv;
    try {
      await t.step("a read on the read-only disk opens it, and reads", async () => {
        readOnly = await memories.open(project);
        assert.equal((await readOnly.get(["mark"])).value, "before");
        assert.equal(await memories.open(project), readOnly);
      });
    } finally {
      await disk.remount("rw");
    }

    await t.step("the first write once the disk is writable is taken", async () => {
      const memory = await memories.open(project);
      await memory.set(["mark"], "after");
      assert.equal((await memory.get(["mark"])).value, "after");
      assert.equal(await isClosed(readOnly), true);
      assert.deepEqual(lines, [
        `[memory] ${projectMemoryPath(project)} can be written now; the memory opened ` +
        `read-only was closed and opened afresh`,
      ]);
    });

    await t.step("a memory opened writable is handed out as it is", async () => {
      const memory = await memories.open(project);
      assert.equal(await memories.open(project), memory);
      assert.equal(lines.length, 1);
    });
  } finally {
    await memories.close();
    await disk.close();
  }
});
