import assert from "node:assert/strict";
import { join } from "node:path";
import {
  readInstallationOwner,
  tryOwnInstallation,
} from "../../runtime/projects/installation_owner.ts";

Deno.test("`tryOwnInstallation()` gives an installation one owner at a time", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-owner-" });
  const home = join(root, "home");
  try {
    const first = await tryOwnInstallation(home, "serve");
    assert.ok(first, "a free installation is taken");

    await t.step("the owner leaves a note saying who it is", async () => {
      const note = await readInstallationOwner(home);
      assert.equal(note?.pid, Deno.pid);
      assert.equal(note?.command, "serve");
      assert.equal(note?.port, undefined);
      await first.tell({ port: 4321 });
      assert.equal((await readInstallationOwner(home))?.port, 4321);
    });

    await t.step("while it is owned, nobody else takes it", async () => {
      assert.equal(await tryOwnInstallation(home, "call"), null);
      // Not even through another handle of the same process.
      assert.equal(await tryOwnInstallation(home, "serve"), null);
    });

    await t.step("released, its note is gone and the next one takes it", async () => {
      await first.release();
      assert.equal(await readInstallationOwner(home), null);
      const next = await tryOwnInstallation(home, "call");
      assert.ok(next);
      assert.equal((await readInstallationOwner(home))?.command, "call");
      await next.release();
    });

    await t.step("a garbled note says nothing", async () => {
      await Deno.writeTextFile(join(home, "owner.json"), "{ half");
      assert.equal(await readInstallationOwner(home), null);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
