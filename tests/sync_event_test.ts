import assert from "node:assert/strict";
import { join } from "node:path";
import { Clock, switchOff, switchOn } from "../runtime/clock/mod.ts";
import type { EventSubscription } from "../runtime/event_bus.ts";
import { listReceipts } from "../runtime/host/mod.ts";
import { installPackage, openProject, removePackage } from "../runtime/lifecycle/mod.ts";
import type { SyncEvent } from "../runtime/sync_event.ts";
import { testHost, writePackage } from "./internal/packages.ts";

/** What the watcher was given so far. */
async function drain(watcher: EventSubscription): Promise<SyncEvent[]> {
  const events: SyncEvent[] = [];
  for (let event = await watcher.next(1); event !== null; event = await watcher.next(1)) {
    assert.notEqual(event.type, "resync");
    events.push(event as SyncEvent);
  }
  return events;
}

Deno.test("each fact is published on the host's bus where it happens, after it is written", async (t) => {
  const env = await testHost();
  const watcher = env.host.events.subscribe({ project: env.project });
  try {
    const dir = await writePackage(join(env.home, "..", "packages"), {
      id: "tick",
      permissions: ["background", "schedule"],
      handlers: ["tick.run", "tick.fail"],
      service: `export default function register() {
        return { "tick.run": () => 1, "tick.fail": () => { throw new Error("no"); } };
      }`,
      manifest: { schedule: [{ handler: "tick.run", description: "Ticks", every: "1h" }] },
    });

    await t.step("an install tells its stages, then that it is installed", async () => {
      await installPackage(env.host, dir, env.project, { approve: true });
      const events = await drain(watcher);
      assert.deepEqual(
        events.map((e) => e.type === "install-progress" ? e.stage : e.type),
        ["unpacking", "checking", "installing", "installed"],
      );
      assert.deepEqual(events.at(-1), {
        type: "installed",
        project: env.project,
        packageId: "tick",
        version: "1.0.0",
        waitingForApproval: false,
      });
    });

    await t.step(
      "a call tells it started, its receipt once written, and that it ended",
      async () => {
        await env.call("tick", "tick.run");
        const [started, receipt, ended] = await drain(watcher);
        assert.equal(started.type, "handler-started");
        assert.equal(receipt.type, "receipt");
        assert.equal(ended.type, "handler-ended");
        if (receipt.type !== "receipt" || started.type !== "handler-started") return;
        assert.equal(receipt.receipt.id, started.receiptId);
        assert.equal(receipt.receipt.outcome, "ok");
        // Told after the write: the receipt is there to be read.
        const [stored] = await listReceipts(env.host.kv, env.project, { limit: 1 });
        assert.deepEqual(stored, receipt.receipt);
        assert.deepEqual(ended, {
          type: "handler-ended",
          project: env.project,
          packageId: "tick",
          handler: "tick.run",
          receiptId: started.receiptId,
          outcome: "ok",
        });
      },
    );

    await t.step("a failed call tells its failed receipt", async () => {
      await assert.rejects(env.call("tick", "tick.fail"));
      const receipt = (await drain(watcher)).find((e) => e.type === "receipt");
      assert.equal(receipt?.type === "receipt" && receipt.receipt.outcome, "failed");
    });

    await t.step("a call refused before it starts tells only its receipt", async () => {
      await assert.rejects(env.call("tick", "tick.none"));
      assert.deepEqual((await drain(watcher)).map((e) => e.type), ["receipt"]);
    });

    await t.step("switching the clock off and on tells each switch", async () => {
      await switchOff(env.host.kv, env.project, "tick", env.host);
      await switchOn(env.host.kv, env.project, "tick", env.host);
      assert.deepEqual(await drain(watcher), [
        { type: "switch", project: env.project, packageId: "tick", on: false },
        { type: "switch", project: env.project, packageId: "tick", on: true },
      ]);
    });

    await t.step("the clock passing a handler over tells the skip's receipt", async () => {
      await switchOff(env.host.kv, env.project, "tick", env.host);
      const clock = new Clock(env.host, { log: () => {} });
      try {
        assert.equal((await clock.tick()).skipped.length, 1);
      } finally {
        await clock.stop();
      }
      const events = await drain(watcher);
      const skip = events.find((e) => e.type === "receipt");
      assert.equal(skip?.type === "receipt" && skip.receipt.outcome, "skipped");
      assert.equal(skip?.type === "receipt" && skip.receipt.error?.name, "switched-off");
      await switchOn(env.host.kv, env.project, "tick", env.host);
      await drain(watcher);
    });

    await t.step("an update that widens permissions tells it waits for approval", async () => {
      const wider = await writePackage(join(env.home, "..", "packages"), {
        id: "tick",
        version: "1.1.0",
        permissions: ["background", "schedule", "net:api.example.com"],
        handlers: ["tick.run", "tick.fail"],
        service: `export default function register() {
          return { "tick.run": () => 2, "tick.fail": () => 0 };
        }`,
        manifest: { schedule: [{ handler: "tick.run", description: "Ticks", every: "1h" }] },
      });
      await assert.rejects(
        installPackage(env.host, wider, env.project, { replace: true }),
        /asks for more/,
      );
      const events = await drain(watcher);
      assert.deepEqual(events.at(-1), {
        type: "installed",
        project: env.project,
        packageId: "tick",
        version: "1.1.0",
        waitingForApproval: true,
      });
    });

    await t.step("a removal tells it is removed", async () => {
      await removePackage(env.host, "tick", env.project);
      assert.deepEqual(await drain(watcher), [
        { type: "removed", project: env.project, packageId: "tick" },
      ]);
    });

    await t.step(
      "opening the project tells it is opened, before its opened handlers run",
      async () => {
        await openProject(env.host, env.project);
        assert.deepEqual(await drain(watcher), [{ type: "opened", project: env.project }]);
      },
    );
  } finally {
    watcher.close();
    await env.close();
  }
});
