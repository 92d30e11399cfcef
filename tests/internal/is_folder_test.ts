import assert from "node:assert/strict";
import { join } from "node:path";
import { isFolder } from "../../runtime/internal/is_folder.ts";

Deno.test("`isFolder()` is true for a folder or a link to one, false for anything else", async (t) => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(root, "folder"));
    await Deno.writeTextFile(join(root, "file"), "");
    await Deno.symlink(join(root, "folder"), join(root, "link"));
    await t.step("a folder and a link to one", async () => {
      assert.equal(await isFolder(join(root, "folder")), true);
      assert.equal(await isFolder(join(root, "link")), true);
    });
    await t.step("a file, nothing, and a folder removed", async () => {
      assert.equal(await isFolder(join(root, "file")), false);
      assert.equal(await isFolder(join(root, "missing")), false);
      await Deno.remove(join(root, "folder"));
      assert.equal(await isFolder(join(root, "link")), false);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
