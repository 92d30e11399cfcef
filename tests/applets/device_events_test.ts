import assert from "node:assert/strict";
import type { EventSubscription } from "../../runtime/event_bus.ts";
import type { SyncEvent } from "../../runtime/sync_event.ts";
import { appletEnv } from "../internal/applets.ts";

const SERVICE = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async () => {
      await memory.write({ key: "mail.message/1", title: "Hello" });
      return { coverage: { read: 1, of: 1, failed: 0 } };
    },
  };
}`;

/** The `device` facts the watcher was given so far, as "<package>" each. */
async function deviceFacts(watcher: EventSubscription): Promise<string[]> {
  const told: string[] = [];
  for (let event = await watcher.next(1); event !== null; event = await watcher.next(1)) {
    if (event.type === "device") told.push((event as SyncEvent & { type: "device" }).packageId);
  }
  return told;
}

Deno.test("`TaskRunner` tells a `device` fact for each decision and each run's start and end", async (t) => {
  const applet = await appletEnv({ service: SERVICE });
  const { env, runner } = applet;
  const watcher = env.host.events.subscribe({ project: env.project });
  try {
    await t.step("connect, pause, resume and consent are each told once", async () => {
      await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
      assert.deepEqual(await deviceFacts(watcher), ["mail"]);
      await runner.pause(env.project, "mail");
      await runner.resume(env.project, "mail");
      await runner.grantConsent(env.project, "mail", "http://127.0.0.1:11434");
      await runner.revokeConsent(env.project, "mail");
      assert.deepEqual(await deviceFacts(watcher), ["mail", "mail", "mail", "mail"]);
    });

    await t.step("a run is told as it begins (processing) and once it ended (ready)", async () => {
      const states: string[] = [];
      const seen = env.host.events.subscribe({ project: env.project });
      const reading = (async () => {
        for (let event = await seen.next(2_000); event !== null; event = await seen.next(200)) {
          if (event.type === "device") {
            states.push((await runner.view(env.project, "mail")).state);
          }
        }
      })();
      await runner.runTask(env.project, "mail", "sync");
      await reading;
      seen.close();
      assert.equal(states.at(-1), "ready", `the last fact finds it ready: ${states}`);
      assert.equal(states.length, 2, `two facts: ${states}`);
      await deviceFacts(watcher);
    });

    await t.step("reset and disconnect are told", async () => {
      await runner.reset(env.project, "mail");
      await runner.disconnect(env.project, "mail");
      assert.deepEqual(await deviceFacts(watcher), ["mail", "mail"]);
    });
  } finally {
    watcher.close();
    await applet.close();
  }
});
