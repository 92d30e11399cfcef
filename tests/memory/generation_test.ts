import assert from "node:assert/strict";
import { InvalidInputError } from "../../runtime/errors.ts";
import { bumpGeneration, readGeneration } from "../../runtime/memory/generation.ts";
import { generationKey } from "../../runtime/memory/keys.ts";

Deno.test("generation counter", async (t) => {
  await t.step("readGeneration() answers 0 with no versionstamp before any bump", async () => {
    using kv = await Deno.openKv(":memory:");
    assert.deepEqual(await readGeneration(kv, "issues"), { value: 0, versionstamp: null });
  });

  await t.step("bumpGeneration() counts up by one and changes the versionstamp", async () => {
    using kv = await Deno.openKv(":memory:");
    assert.equal(await bumpGeneration(kv, "issues"), 1);
    const first = await readGeneration(kv, "issues");
    assert.equal(first.value, 1);
    assert.notEqual(first.versionstamp, null);
    assert.equal(await bumpGeneration(kv, "issues"), 2);
    const second = await readGeneration(kv, "issues");
    assert.equal(second.value, 2);
    assert.notEqual(second.versionstamp, first.versionstamp);
  });

  await t.step("bumpGeneration() loses no bump when bumps race", async () => {
    using kv = await Deno.openKv(":memory:");
    const values = await Promise.all(
      Array.from({ length: 10 }, () => bumpGeneration(kv, "issues")),
    );
    assert.deepEqual(values.sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal((await readGeneration(kv, "issues")).value, 10);
  });

  await t.step("each package has its own generation", async () => {
    using kv = await Deno.openKv(":memory:");
    await bumpGeneration(kv, "issues");
    assert.equal((await readGeneration(kv, "mail")).value, 0);
    assert.deepEqual(generationKey("mail"), ["generation", "mail"]);
  });

  await t.step("an empty package id is refused", async () => {
    using kv = await Deno.openKv(":memory:");
    await assert.rejects(() => readGeneration(kv, ""), InvalidInputError);
    await assert.rejects(() => bumpGeneration(kv, ""), InvalidInputError);
    await assert.rejects(
      () => bumpGeneration(kv, ""),
      (error) =>
        error instanceof InvalidInputError &&
        error.message === "A package id must be a non-empty string, got an empty string.",
    );
  });
});
