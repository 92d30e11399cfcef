import assert from "node:assert/strict";
import { join } from "node:path";
import {
  findInstallationOwner,
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
      await first.tell({ port: 4321, socket: join(home, "owner.sock") });
      const told = await readInstallationOwner(home);
      assert.equal(told?.port, 4321);
      assert.equal(told?.socket, join(home, "owner.sock"));
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

Deno.test("`findInstallationOwner()` believes a note only while its lock is held", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-owner-" });
  const home = join(root, "home");
  try {
    await t.step("a home never owned has no owner", async () => {
      assert.deepEqual(await findInstallationOwner(home), { held: false, note: null, left: null });
    });

    await t.step("while the lock is held, the holder's note is answered", async () => {
      const owner = await tryOwnInstallation(home, "serve");
      assert.ok(owner);
      try {
        await owner.tell({ port: 4321, socket: join(home, "owner.sock") });
        const now = await findInstallationOwner(home);
        assert.equal(now.held, true);
        assert.equal(now.note?.pid, Deno.pid);
        assert.equal(now.note?.socket, join(home, "owner.sock"));
        assert.equal(now.left, null);
        // Looking did not take it.
        assert.equal(await tryOwnInstallation(home, "call"), null);
      } finally {
        await owner.release();
      }
    });

    await t.step(
      "a note found with the lock free was left behind: said so and removed",
      async () => {
        // What a serve killed while it served leaves: its note, and a lock nobody holds.
        const left = {
          pid: 99999,
          command: "serve",
          since: "2026-01-01T00:00:00.000Z",
          port: 4321,
        };
        await Deno.writeTextFile(join(home, "owner.json"), JSON.stringify(left));
        const now = await findInstallationOwner(home);
        assert.deepEqual(now, { held: false, note: null, left });
        assert.equal(await readInstallationOwner(home), null);
        const next = await tryOwnInstallation(home, "call");
        assert.ok(next, "the lock was let go of after looking");
        await next.release();
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
