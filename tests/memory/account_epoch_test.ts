import assert from "node:assert/strict";
import { InvalidInputError } from "../../runtime/errors.ts";
import { bumpAccountEpoch, readAccountEpoch } from "../../runtime/memory/account_epoch.ts";
import { accountEpochKey } from "../../runtime/memory/keys.ts";

Deno.test("account epoch counter", async (t) => {
  await t.step("`readAccountEpoch()` answers 0 before any bump", async () => {
    using kv = await Deno.openKv(":memory:");
    assert.equal(await readAccountEpoch(kv, "mail"), 0);
  });

  await t.step("`bumpAccountEpoch()` counts up by one", async () => {
    using kv = await Deno.openKv(":memory:");
    assert.equal(await bumpAccountEpoch(kv, "mail"), 1);
    assert.equal(await readAccountEpoch(kv, "mail"), 1);
    assert.equal(await bumpAccountEpoch(kv, "mail"), 2);
    assert.equal((await kv.get(accountEpochKey("mail"))).value, 2);
  });

  await t.step("`bumpAccountEpoch()` loses no bump when bumps race", async () => {
    using kv = await Deno.openKv(":memory:");
    const values = await Promise.all(
      Array.from({ length: 10 }, () => bumpAccountEpoch(kv, "mail")),
    );
    assert.deepEqual(values.sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal(await readAccountEpoch(kv, "mail"), 10);
  });

  await t.step("each package has its own epoch, apart from its generation", async () => {
    using kv = await Deno.openKv(":memory:");
    await bumpAccountEpoch(kv, "mail");
    assert.equal(await readAccountEpoch(kv, "calendar"), 0);
    assert.equal((await kv.get(["generation", "mail"])).value, null);
  });

  await t.step("an empty package id is refused", async () => {
    using kv = await Deno.openKv(":memory:");
    await assert.rejects(() => readAccountEpoch(kv, ""), InvalidInputError);
    await assert.rejects(
      () => bumpAccountEpoch(kv, ""),
      (error) =>
        error instanceof InvalidInputError &&
        error.message === "A package id must be a non-empty string, got an empty string.",
    );
  });
});
