import assert from "node:assert/strict";
import { join } from "node:path";
import { sortedFolderNames } from "../../../runtime/host/functions/_folder_names.ts";

Deno.test("`sortedFolderNames()` keeps a quiet folder's names and never hides a change", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    for (const name of ["b", "a", "c"]) await Deno.writeTextFile(join(dir, name), name);
    const hourAgo = new Date(Date.now() - 3_600_000);
    await Deno.utime(dir, hourAgo, hourAgo);
    const real = await Deno.realPath(dir);

    await t.step("names come sorted by code unit", async () => {
      assert.deepEqual(await sortedFolderNames(real), ["a", "b", "c"]);
    });

    // Setting the times is a status change: the folder is quiet 10 s later.
    const later = () => Date.now() + 10_000;

    await t.step("a quiet folder's names are kept: the same array answers again", async () => {
      const first = await sortedFolderNames(real, later);
      assert.equal(await sortedFolderNames(real, later), first);
    });

    await t.step(
      "a name added since is there at once: the folder's change time moved",
      async () => {
        await Deno.writeTextFile(join(dir, "d"), "d");
        assert.deepEqual(await sortedFolderNames(real), ["a", "b", "c", "d"]);
      },
    );

    await t.step("a folder changed within the last seconds is read each time", async () => {
      const first = await sortedFolderNames(real);
      assert.notEqual(await sortedFolderNames(real), first);
      assert.deepEqual(await sortedFolderNames(real), first);
    });

    await t.step("a change whose modification time was set back is seen", async () => {
      await Deno.utime(dir, hourAgo, hourAgo);
      let now = Date.now() + 10_000; // the folder's status change is 10 s old
      const first = await sortedFolderNames(real, () => now);
      assert.equal(await sortedFolderNames(real, () => now), first);
      // The status change time has a second's grain: the change comes in a later second, as
      // it does for any folder kept, which must have been quiet for seconds.
      // The system stamps changes by a coarse clock a few milliseconds behind Date.now(): the
      // change waits until that clock too is past the second.
      const second = Math.floor((await Deno.stat(dir)).ctime!.getTime() / 1000);
      while (Date.now() < (second + 1) * 1000 + 250) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await Deno.remove(join(dir, "d"));
      await Deno.utime(dir, hourAgo, hourAgo); // as `rsync -t` leaves it
      const changedAt = Math.floor((await Deno.stat(dir)).ctime!.getTime() / 1000);
      assert.ok(changedAt > second, `the change is stamped ${changedAt}, after ${second}`);
      now += 1;
      assert.deepEqual(await sortedFolderNames(real, () => now), ["a", "b", "c"]);
    });

    await t.step("kept names are read again once they are old", async () => {
      await Deno.utime(dir, hourAgo, hourAgo);
      let now = Date.now() + 10_000;
      const first = await sortedFolderNames(real, () => now);
      assert.equal(await sortedFolderNames(real, () => now), first);
      now += 60_000;
      assert.notEqual(await sortedFolderNames(real, () => now), first);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
