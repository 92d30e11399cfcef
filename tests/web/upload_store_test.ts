import assert from "node:assert/strict";
import { join } from "node:path";
import { NotFoundError, PayloadTooLargeError } from "../../runtime/errors.ts";
import { UPLOAD_LIMITS } from "../../runtime/limits.ts";
import { UploadStore } from "../../runtime/web/upload_store.ts";

function body(...chunks: number[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(chunks.map((n) => new Uint8Array(n).fill(7)));
}

Deno.test("`UploadStore` keeps uploads under the installation's cache for an hour unused", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-uploads-" });
  let now = Date.now();
  const uploads = new UploadStore(home, { now: () => now, maxBytes: 100 });
  try {
    await t.step("`save()` keeps the bytes under an opaque id", async () => {
      const saved = await uploads.save(body(10, 20));
      assert.match(saved.id, /^[0-9a-f]{32}$/);
      assert.equal(saved.bytes, 30);
      const file = await uploads.path(saved.id);
      assert.equal(file, join(home, "cache", "uploads", saved.id));
      assert.equal((await Deno.readFile(file)).byteLength, 30);
    });

    await t.step("`save()` past the limit keeps nothing", async () => {
      await assert.rejects(uploads.save(body(60, 60)), PayloadTooLargeError);
      const names = (await Array.fromAsync(Deno.readDir(join(home, "cache", "uploads"))))
        .map((e) => e.name);
      assert.equal(names.length, 1, "only the upload of the step before");
      assert.ok(!names.some((n) => n.endsWith(".part")));
    });

    await t.step(
      "an upload used is kept another hour; one unused for an hour is removed",
      async () => {
        const used = await uploads.save(body(5));
        const unused = await uploads.save(body(5));
        now += UPLOAD_LIMITS.keepUnusedMs - 60_000;
        await uploads.path(used.id);
        now += 120_000;
        const removed = await uploads.sweep();
        assert.ok(removed.includes(unused.id));
        assert.ok(!removed.includes(used.id));
        await assert.rejects(uploads.path(unused.id), NotFoundError);
        assert.ok(await uploads.path(used.id));
      },
    );

    await t.step("`remove()` takes an upload away; a made-up id never names a path", async () => {
      const saved = await uploads.save(body(5));
      await uploads.remove(saved.id);
      await assert.rejects(uploads.path(saved.id), NotFoundError);
      await assert.rejects(uploads.path("../../token"), /not an upload id/);
      await uploads.remove("../../token");
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
