import assert from "node:assert/strict";
import { join } from "node:path";
import { openWhereFound } from "../../runtime/internal/open_where_found.ts";

Deno.test("`openWhereFound()` opens only the file where it was found", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-test-" }));
  const home = Deno.cwd();
  try {
    await Deno.mkdir(join(root, "in", "d"), { recursive: true });
    await Deno.mkdir(join(root, "out"));
    await Deno.writeTextFile(join(root, "in", "d", "f"), "inside");
    await Deno.writeTextFile(join(root, "out", "f"), "outside");
    const real = join(root, "in", "d", "f");

    await t.step("a regular file opens and reads; the process's folder is put back", async () => {
      const opened = openWhereFound(real);
      assert.ok(typeof opened !== "string");
      try {
        assert.equal(new TextDecoder().decode((await opened.readAtMost(100))!), "inside");
      } finally {
        opened.close();
      }
      assert.equal(Deno.cwd(), home);
      const again = openWhereFound(real);
      assert.ok(typeof again !== "string");
      try {
        assert.equal(await again.readAtMost(3), null, "past the limit: null");
      } finally {
        again.close();
      }
    });

    await t.step("a folder on the way now a link leading elsewhere: moved", async () => {
      await Deno.rename(join(root, "in", "d"), join(root, "in", "d.kept"));
      await Deno.symlink(join(root, "out"), join(root, "in", "d"));
      try {
        assert.equal(openWhereFound(real), "moved");
        assert.equal(Deno.cwd(), home);
      } finally {
        await Deno.remove(join(root, "in", "d"));
        await Deno.rename(join(root, "in", "d.kept"), join(root, "in", "d"));
      }
    });

    await t.step("the file itself now a link: moved", async () => {
      await Deno.rename(real, `${real}.kept`);
      await Deno.symlink(join(root, "out", "f"), real);
      try {
        assert.equal(openWhereFound(real), "moved");
      } finally {
        await Deno.remove(real);
        await Deno.rename(`${real}.kept`, real);
      }
    });

    await t.step("a FIFO opens at once and is no file", async () => {
      const fifo = join(root, "in", "d", "fifo");
      const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
      assert.ok(made.success);
      assert.equal(openWhereFound(fifo), "not a file");
    });

    await t.step("a process whose folder was removed still reads", async () => {
      const gone = join(root, "gone");
      await Deno.mkdir(gone);
      Deno.chdir(gone);
      await Deno.remove(gone);
      const opened = openWhereFound(real);
      assert.ok(typeof opened !== "string");
      opened.close();
    });
  } finally {
    Deno.chdir(home);
    await Deno.remove(root, { recursive: true });
  }
});
