import assert from "node:assert/strict";
import {
  clearClockLease,
  holdClockLease,
  readClockLease,
  releaseClockLease,
} from "../../runtime/clock/lease.ts";

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);
const FOR_MS = 3 * 60_000;

Deno.test("`holdClockLease()` lets one process hold the clock at a time", async (t) => {
  using kv = await Deno.openKv(":memory:");

  await t.step("`readClockLease()` answers null while nobody holds it", async () => {
    assert.equal(await readClockLease(kv), null);
  });

  await t.step("the first holder takes it until now plus its length", async () => {
    assert.equal(await holdClockLease(kv, "serve-a", { now: T0, forMs: FOR_MS }), true);
    assert.deepEqual(await readClockLease(kv), { holder: "serve-a", until: T0 + FOR_MS });
  });

  await t.step("a second holder is refused while it runs, and changes nothing", async () => {
    assert.equal(await holdClockLease(kv, "serve-b", { now: T0 + 1, forMs: FOR_MS }), false);
    assert.equal(
      await holdClockLease(kv, "serve-b", { now: T0 + FOR_MS - 1, forMs: FOR_MS }),
      false,
    );
    assert.deepEqual(await readClockLease(kv), { holder: "serve-a", until: T0 + FOR_MS });
  });

  await t.step("the holder renews it at each look", async () => {
    assert.equal(await holdClockLease(kv, "serve-a", { now: T0 + 60_000, forMs: FOR_MS }), true);
    assert.deepEqual(await readClockLease(kv), { holder: "serve-a", until: T0 + 60_000 + FOR_MS });
    assert.equal(
      await holdClockLease(kv, "serve-b", { now: T0 + FOR_MS, forMs: FOR_MS }),
      false,
      "renewed, so it has not run out where it first would have",
    );
  });

  await t.step("once it runs out unrenewed, another takes it", async () => {
    const until = T0 + 60_000 + FOR_MS;
    assert.equal(await holdClockLease(kv, "serve-b", { now: until, forMs: FOR_MS }), true);
    assert.deepEqual(await readClockLease(kv), { holder: "serve-b", until: until + FOR_MS });
    assert.equal(
      await holdClockLease(kv, "serve-a", { now: until + 1, forMs: FOR_MS }),
      false,
      "the old holder lost it",
    );
  });

  await t.step("a holder whose lease ran out renews it when nobody took it", async () => {
    const late = T0 + 100 * FOR_MS;
    assert.equal(await holdClockLease(kv, "serve-b", { now: late, forMs: FOR_MS }), true);
    assert.deepEqual(await readClockLease(kv), { holder: "serve-b", until: late + FOR_MS });
  });

  await t.step("of two takers at once on a free lease, exactly one holds it", async () => {
    await clearClockLease(kv);
    const held = await Promise.all([
      holdClockLease(kv, "serve-c", { now: T0, forMs: FOR_MS }),
      holdClockLease(kv, "serve-d", { now: T0, forMs: FOR_MS }),
    ]);
    assert.deepEqual([...held].sort(), [false, true]);
    const holder = held[0] ? "serve-c" : "serve-d";
    assert.equal((await readClockLease(kv))?.holder, holder);
  });
});

Deno.test("`releaseClockLease()` lets the lease go only for its holder", async (t) => {
  using kv = await Deno.openKv(":memory:");
  await holdClockLease(kv, "serve-a", { now: T0, forMs: FOR_MS });

  await t.step("another process's release leaves it held", async () => {
    await releaseClockLease(kv, "serve-b");
    assert.deepEqual(await readClockLease(kv), { holder: "serve-a", until: T0 + FOR_MS });
  });

  await t.step("the holder's release frees it, and another takes it at once", async () => {
    await releaseClockLease(kv, "serve-a");
    assert.equal(await readClockLease(kv), null);
    assert.equal(await holdClockLease(kv, "serve-b", { now: T0 + 1, forMs: FOR_MS }), true);
  });

  await t.step("releasing a lease nobody holds does nothing", async () => {
    await clearClockLease(kv);
    await releaseClockLease(kv, "serve-a");
    assert.equal(await readClockLease(kv), null);
  });
});

Deno.test("`clearClockLease()` clears the lease whoever holds it", async () => {
  using kv = await Deno.openKv(":memory:");
  await holdClockLease(kv, "serve-a", { now: T0, forMs: FOR_MS });
  await clearClockLease(kv);
  assert.equal(await readClockLease(kv), null);
  assert.equal(await holdClockLease(kv, "serve-b", { now: T0 + 1, forMs: FOR_MS }), true);
});
