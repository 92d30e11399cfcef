import assert from "node:assert/strict";
import { type PackageSpec, testHost } from "../internal/packages.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { removePackage } from "../../runtime/lifecycle/remove.ts";
import { Clock } from "../../runtime/clock/clock.ts";
import { isSwitchedOff, switchOff } from "../../runtime/clock/switch.ts";
import { readStamp } from "../../runtime/clock/stamps.ts";
import { describeSchedule } from "../../runtime/clock/schedule_view.ts";

Deno.test("removePackage() forgets the clock's state, so a reinstall starts afresh", async () => {
  const env = await testHost();
  try {
    const spec: PackageSpec = {
      id: "ticker",
      permissions: ["background", "schedule"],
      handlers: ["ticker.run"],
      service: `export default function register() { return { "ticker.run": () => 1 }; }`,
      manifest: { schedule: [{ handler: "ticker.run", description: "Ticks", every: "1h" }] },
    };
    const dir = await env.install(spec);
    await new Clock(env.host, { log: () => {} }).tick();
    await switchOff(env.kv, env.project, "ticker", env.host);
    assert.ok(await readStamp(env.kv, env.project, "ticker", "ticker.run"));

    await removePackage(env.host, "ticker", env.project);
    assert.equal(await isSwitchedOff(env.kv, env.project, "ticker"), false);
    assert.equal(await readStamp(env.kv, env.project, "ticker", "ticker.run"), null);

    await installPackage(env.host, dir, env.project, { approve: true });
    const [row] = await describeSchedule(env.kv, env.project, env.host);
    assert.deepEqual([row.on, row.lastAttempt, row.needsReview], [true, null, false]);
  } finally {
    await env.close();
  }
});
