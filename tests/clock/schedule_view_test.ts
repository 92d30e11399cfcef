import assert from "node:assert/strict";
import { describeSchedule } from "../../runtime/clock/schedule_view.ts";
import { beginAttempt } from "../../runtime/clock/stamps.ts";
import { writeReceipt } from "../../runtime/host/mod.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { testHost } from "../internal/packages.ts";

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);

Deno.test("`describeSchedule()` tells an attempt as its receipt ends it", async (t) => {
  const env = await testHost();
  try {
    await env.install({
      id: "ticker",
      permissions: ["background", "schedule"],
      handlers: ["ticker.tick"],
      service: `export default function register() { return { "ticker.tick": () => 1 }; }`,
      manifest: { schedule: [{ handler: "ticker.tick", description: "Ticks", every: "1h" }] },
    });
    const now = () => T0 + 5_000;
    const view = async () =>
      (await describeSchedule(env.kv, env.project, { now, limits: DEFAULT_LIMITS }))[0]
        .lastAttempt;
    await beginAttempt(env.kv, env.project, "ticker", "ticker.tick", {
      at: T0,
      startedAt: T0,
      previousAt: null,
    });

    await t.step("a stamp of an attempt started a moment ago says running", async () => {
      assert.equal((await view())?.outcome, "running");
    });

    await t.step("once the next process wrote its interrupted receipt, it says so", async () => {
      await writeReceipt(env.kv, {
        id: "r-1",
        project: env.project,
        packageId: "ticker",
        handler: "ticker.tick",
        occasion: { kind: "clock" },
        startedAt: new Date(T0 + 10).toISOString(),
        endedAt: new Date(T0 + 2_000).toISOString(),
        outcome: "interrupted",
        error: { name: "ProcessStopped", message: "the process running it stopped" },
      });
      const attempt = await view();
      assert.equal(attempt?.outcome, "interrupted");
      assert.equal(attempt?.endedAt, new Date(T0 + 2_000).toISOString());
      assert.equal(attempt?.error?.name, "ProcessStopped");
    });
  } finally {
    await env.close();
  }
});
