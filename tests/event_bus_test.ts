import assert from "node:assert/strict";
import { EventBus } from "../runtime/event_bus.ts";
import type { SyncEvent } from "../runtime/sync_event.ts";

function switched(project: string, on: boolean): SyncEvent {
  return { type: "switch", project, packageId: "p", on };
}

Deno.test("`EventBus` hands each watcher its project's facts, and holds no more than its bound", async (t) => {
  await t.step("a watcher is given its project's facts in order, and not another's", async () => {
    const bus = new EventBus();
    const watcher = bus.subscribe({ project: "/a" });
    bus.publish(switched("/a", false));
    bus.publish(switched("/b", false));
    bus.publish(switched("/a", true));
    assert.deepEqual(await watcher.next(10_000), switched("/a", false));
    assert.deepEqual(await watcher.next(10_000), switched("/a", true));
    assert.equal(await watcher.next(1), null, "nothing of /b, and the wait runs out");
    watcher.close();
    assert.equal(bus.watchers, 0);
  });

  await t.step("a watcher of some kinds is held only those, of every project", async () => {
    const bus = new EventBus();
    const watcher = bus.subscribe({ types: new Set(["opened", "removed"]) });
    bus.publish(switched("/a", false));
    bus.publish({ type: "opened", project: "/a" });
    bus.publish({ type: "removed", project: "/b", packageId: "p" });
    assert.deepEqual(await watcher.next(10_000), { type: "opened", project: "/a" });
    assert.deepEqual(await watcher.next(10_000), {
      type: "removed",
      project: "/b",
      packageId: "p",
    });
    assert.equal(await watcher.next(1), null, "no switch was held");
    watcher.close();
  });

  await t.step("a waiting watcher wakes when a fact is published", async () => {
    const bus = new EventBus();
    const watcher = bus.subscribe({ project: "/a" });
    const next = watcher.next(60_000);
    bus.publish(switched("/a", true));
    assert.deepEqual(await next, switched("/a", true));
    watcher.close();
  });

  await t.step(
    "a watcher that falls behind its bound is told resync, then what came after",
    async () => {
      const bus = new EventBus();
      const slow = bus.subscribe({ project: "/a", maxQueued: 3 });
      const quick = bus.subscribe({ project: "/a", maxQueued: 100 });
      for (let i = 0; i < 10; i++) bus.publish(switched("/a", i % 2 === 0));
      assert.deepEqual(await slow.next(10_000), { type: "resync", dropped: 8 });
      // What was held since the last drop is still given, in order.
      assert.deepEqual(await slow.next(10_000), switched("/a", true));
      assert.deepEqual(await slow.next(10_000), switched("/a", false));
      assert.equal(await slow.next(1), null);
      bus.publish(switched("/a", true));
      assert.deepEqual(await slow.next(10_000), switched("/a", true));
      // Another watcher on the same bus lost nothing.
      let given = 0;
      while (await quick.next(1) !== null) given++;
      assert.equal(given, 11);
      slow.close();
      quick.close();
    },
  );

  await t.step("a watcher is held no more bytes than its bound, however few facts", async () => {
    const bus = new EventBus();
    const size = new TextEncoder().encode(JSON.stringify(switched("/a", true))).byteLength;
    const slow = bus.subscribe({ project: "/a", maxQueuedBytes: size * 2 + size / 2 });
    for (let i = 0; i < 3; i++) bus.publish(switched("/a", true));
    // The third would pass the bytes: the two held are dropped with it.
    assert.deepEqual(await slow.next(10_000), { type: "resync", dropped: 3 });
    assert.equal(await slow.next(1), null);
    // Taking a fact frees its bytes.
    bus.publish(switched("/a", false));
    assert.deepEqual(await slow.next(10_000), switched("/a", false));
    bus.publish(switched("/a", true));
    bus.publish(switched("/a", false));
    assert.deepEqual(await slow.next(10_000), switched("/a", true));
    assert.deepEqual(await slow.next(10_000), switched("/a", false));
    slow.close();
  });

  await t.step("publishing with nobody watching, or to a closed watcher, does nothing", () => {
    const bus = new EventBus();
    bus.publish(switched("/a", true));
    const watcher = bus.subscribe();
    watcher.close();
    bus.publish(switched("/a", true));
    assert.equal(bus.watchers, 0);
  });

  await t.step("`closeWatchers()` ends every wait at once", async () => {
    const bus = new EventBus();
    const waits = [bus.subscribe(), bus.subscribe({ project: "/b" })].map((w) => w.next(600_000));
    bus.closeWatchers();
    assert.deepEqual(await Promise.all(waits), [null, null]);
    assert.equal(bus.watchers, 0);
  });
});
