import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import type { EventSubscription } from "../../runtime/event_bus.ts";
import { LinkedFolders } from "../../runtime/web/linked_folders.ts";
import type { SyncEvent } from "../../runtime/sync_event.ts";
import { readPackageRef } from "../../runtime/packages/mod.ts";
import { testHost } from "../internal/packages.ts";

const HELLO = {
  id: "hello",
  handlers: ["hello.greet"],
  service: `export default function register() { return { "hello.greet": () => null }; }`,
};

/** Every fact the watcher is given within `ms` of quiet. */
async function factsWithin(watcher: EventSubscription, ms: number): Promise<SyncEvent[]> {
  const facts: SyncEvent[] = [];
  for (let event = await watcher.next(ms); event !== null; event = await watcher.next(ms)) {
    assert.notEqual(event.type, "resync");
    facts.push(event as SyncEvent);
  }
  return facts;
}

/** Waits until `ok()` holds; fails after `ms`. */
async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("LinkedFolders tells a change to a linked package's folder, while a window watches its project", async (t) => {
  const env = await testHost();
  const logs: string[] = [];
  const folders = new LinkedFolders(env.kv, env.host.events, {
    settleMs: 100,
    log: (line) => logs.push(line),
  });
  const watcher = env.host.events.subscribe({ project: env.project });
  const changed = { type: "package-changed", project: env.project, packageId: "hello" };
  try {
    const dir = await env.install(HELLO);
    assert.equal((await readPackageRef(env.kv, "hello"))?.dir, dir);
    const manifest = join(dir, "manifest.json");
    const good = await Deno.readTextFile(manifest);
    await factsWithin(watcher, 1);

    await t.step(
      "nothing is watched, and nobody is on the bus, until a window watches",
      async () => {
        assert.deepEqual(folders.folders, []);
        assert.equal(env.host.events.watchers, 1, "only this test's watcher");
        await Deno.writeTextFile(manifest, good);
        assert.deepEqual(await factsWithin(watcher, 300), []);
      },
    );

    const release = folders.watchProject(env.project);
    const second = folders.watchProject(env.project);

    await t.step("a window watches: the folder and the folders its manifest names", async () => {
      await folders.settled();
      assert.deepEqual(folders.folders, [dir, join(dir, "service")]);
      assert.equal(env.host.events.watchers, 2, "installs and removals are heard");
    });

    await t.step("a burst of writes to the manifest is told once", async () => {
      await Deno.writeTextFile(manifest, "{ broken");
      await Deno.writeTextFile(manifest, "{ broken still");
      await Deno.writeTextFile(manifest, "{ broken again");
      assert.deepEqual(await factsWithin(watcher, 500), [changed]);
    });

    await t.step("a file saved by renaming over it, in a folder the manifest names", async () => {
      await Deno.writeTextFile(manifest, good);
      await factsWithin(watcher, 300);
      const service = join(dir, "service", "index.js");
      await Deno.writeTextFile(`${service}.tmp`, await Deno.readTextFile(service));
      await Deno.rename(`${service}.tmp`, service);
      assert.deepEqual(await factsWithin(watcher, 500), [changed]);
    });

    await t.step(
      "a folder that goes is told, watched for, and told again when it comes back",
      async () => {
        const aside = `${dir}-aside`;
        await Deno.rename(dir, aside);
        assert.deepEqual(await factsWithin(watcher, 500), [changed]);
        await until("its parent watched", () => folders.folders.includes(dirname(dir)));
        await Deno.rename(aside, dir);
        assert.deepEqual(await factsWithin(watcher, 500), [changed]);
        await until("the folder watched again", () => folders.folders.includes(dir));
        await Deno.writeTextFile(manifest, good);
        assert.deepEqual(await factsWithin(watcher, 500), [changed]);
      },
    );

    await t.step("a package installed into the watched project is watched too", async () => {
      const other = await env.install({
        id: "other",
        handlers: ["other.run"],
        service: `export default function register() { return { "other.run": () => null }; }`,
      });
      await until("the new folder watched", () => folders.folders.includes(other));
      await factsWithin(watcher, 100);
      await Deno.writeTextFile(join(other, "manifest.json"), "{}");
      assert.deepEqual(await factsWithin(watcher, 500), [{ ...changed, packageId: "other" }]);
    });

    await t.step("the last window going stops everything", async () => {
      release();
      release(); // twice is once
      await folders.settled();
      assert.ok(folders.folders.length > 0, "the second window still watches");
      second();
      assert.deepEqual(folders.folders, []);
      assert.equal(env.host.events.watchers, 1);
      await Deno.writeTextFile(manifest, good);
      assert.deepEqual(await factsWithin(watcher, 300), []);
    });

    await t.step("at most the bound of folders is watched, and that is said once", async () => {
      const bounded = new LinkedFolders(env.kv, env.host.events, {
        maxWatchedFolders: 1,
        log: (line) => logs.push(line),
      });
      try {
        bounded.watchProject(env.project);
        await bounded.settled();
        assert.equal(bounded.folders.length, 1);
        assert.equal(logs.filter((line) => /the most at once/.test(line)).length, 1);
      } finally {
        bounded.close();
      }
      assert.deepEqual(bounded.folders, []);
    });
  } finally {
    folders.close();
    watcher.close();
    // The watchers' loops end once their iterators are closed.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await env.close();
  }
});
