import assert from "node:assert/strict";
import { type DeviceDeclaration, listAttempts } from "../../runtime/applets/mod.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { appletEnv, writeIn } from "../internal/applets.ts";
import { until } from "../internal/until.ts";

const READS = `export default function register() {
  return { "mail.sync": () => ({ coverage: { read: 1, of: null, failed: 0 } }) };
}`;

Deno.test("an observed folder brings the next run forward after its quiet time", async (t) => {
  const applet = await appletEnv({ service: READS, modes: ["observation", "on-demand"] });
  const { runner, env, timers } = applet;
  const attempts = () => listAttempts(env.kv, env.project, "mail", "sync", 50);
  try {
    await runner.start();
    assert.deepEqual(
      runner.watchedFolders,
      [],
      "nothing is watched before an account is connected",
    );
    await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
    assert.deepEqual(runner.watchedFolders, [applet.folder]);

    await t.step("connected, it reads once at once", async () => {
      await until("the first run to end", async () => {
        timers.fireDue();
        return (await attempts())[0]?.outcome === "ok";
      });
    });

    await t.step("a change waits 2 s of quiet, then a run with trigger observation", async () => {
      await writeIn(applet.folder, "new/1.eml", "Subject: one\n\nhello");
      await until("the change to be seen", () => timers.waiting.includes(2_000));
      await writeIn(applet.folder, "new/2.eml", "Subject: two\n\nhello");
      timers.advance(1_999);
      assert.equal((await attempts()).length, 1, "not within the quiet time");
      await until("the run the change brought", async () => {
        timers.advance(1_000);
        const [newest] = await attempts();
        return newest?.trigger === "observation" && newest.outcome === "ok";
      });
    });

    await t.step("pausing and disconnecting close the watcher", async () => {
      await runner.pause(env.project, "mail");
      assert.deepEqual(runner.watchedFolders, []);
      await runner.resume(env.project, "mail");
      assert.deepEqual(runner.watchedFolders, [applet.folder]);
      await runner.disconnect(env.project, "mail");
      assert.deepEqual(runner.watchedFolders, []);
    });
  } finally {
    await applet.close();
  }
  assert.deepEqual(runner.watchedFolders, [], "stopping closes every watcher");
});

Deno.test("`TaskRunner` admits one background step at a time in the process", async () => {
  const spin = (id: string) =>
    `export default function register() {
  return { "${id}.sync": () => { const end = Date.now() + 300; while (Date.now() < end) {} return null; } };
}`;
  const devices = new Map<string, DeviceDeclaration>();
  for (const id of ["mail", "cal"]) {
    devices.set(id, {
      name: id,
      description: `Reads ${id}`,
      modes: ["on-demand"],
      account: { kind: "folder", description: "A folder" },
      tasks: { sync: { handler: `${id}.sync`, description: "Reads it" } },
    });
  }
  const applet = await appletEnv({
    service: spin("mail"),
    runner: { deviceOf: (_project, pkg) => Promise.resolve(devices.get(pkg) ?? null) },
  });
  const { runner, env } = applet;
  try {
    await env.install({ id: "cal", handlers: ["cal.sync"], service: spin("cal") });
    for (const id of ["mail", "cal"]) {
      await runner.connect(env.project, id, { kind: "folder", folder: applet.folder });
    }
    const ended = await Promise.all([
      runner.runTask(env.project, "mail", "sync"),
      runner.runTask(env.project, "cal", "sync"),
    ]);
    assert.deepEqual(ended.map((attempt) => attempt.outcome), ["ok", "ok"]);
    const receipts = await listReceipts(env.kv, env.project, {});
    const spans = receipts
      .filter((receipt) => receipt.handler.endsWith(".sync"))
      .map((receipt) => [Date.parse(receipt.startedAt), Date.parse(receipt.endedAt)])
      .sort((a, b) => a[0] - b[0]);
    assert.equal(spans.length, 2);
    assert.ok(spans[0][1] <= spans[1][0], `the steps overlapped: ${JSON.stringify(spans)}`);
  } finally {
    await applet.close();
  }
});
