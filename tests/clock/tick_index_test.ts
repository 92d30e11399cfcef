import assert from "node:assert/strict";
import { type PackageSpec, testHost } from "../internal/packages.ts";
import { Clock, type TickReport } from "../../runtime/clock/clock.ts";
import { switchOff, switchOn } from "../../runtime/clock/switch.ts";
import { deleteApproval, readApproval, writeApproval } from "../../runtime/packages/approval.ts";
import {
  addScheduledProject,
  forgetScheduledProject,
  rememberIfScheduled,
} from "../../runtime/clock/scheduled_projects.ts";

const MINUTE = 60_000;
const START = Date.UTC(2030, 0, 1, 9, 0, 0);

/** A package whose one handler, `<id>.run`, the clock calls every hour. */
function hourly(id: string): PackageSpec {
  return {
    id,
    permissions: ["background", "schedule"],
    handlers: [`${id}.run`],
    service: `export default function register() {\n  return { "${id}.run": () => null };\n}\n`,
    manifest: { schedule: [{ handler: `${id}.run`, description: "Checks", every: "1h" }] },
  };
}

function ran(report: TickReport): string[] {
  return report.ran.map((r) => r.packageId).sort();
}

function skipped(report: TickReport): string[] {
  return report.skipped.map((s) => `${s.packageId ?? ""}:${s.reason}`).sort();
}

Deno.test("Clock.tick() sees at its next look what another process wrote, and still runs what comes due", async (t) => {
  let now = START;
  const env = await testHost({ now: () => now, onDisk: true });
  const clock = new Clock(env.host, { now: () => now, log: () => {} });
  // Another process on the same installation: a second handle on the same file.
  const other = await Deno.openKv(env.kvPath);
  try {
    await env.install(hourly("alpha"));
    await env.install(hourly("bravo"));
    assert.equal(await rememberIfScheduled(env.kv, env.project, env.host), true);
    assert.deepEqual(ran(await clock.tick()), ["alpha", "bravo"]);
    // Looks with nothing due: what the clock keeps between looks is in use from here.
    for (let i = 0; i < 3; i++) {
      now += 10 * MINUTE;
      const report = await clock.tick();
      assert.deepEqual([ran(report), skipped(report)], [[], []]);
    }

    await t.step("a handler comes due with nothing else changed, and runs", async () => {
      now += 30 * MINUTE;
      assert.deepEqual(ran(await clock.tick()), ["alpha", "bravo"]);
      now += MINUTE;
      assert.deepEqual(ran(await clock.tick()), []);
    });

    await t.step("an approval taken back by another process is seen with nothing due", async () => {
      const approval = await readApproval(env.kv, env.project, "alpha");
      assert.ok(approval);
      await deleteApproval(other, env.project, "alpha");
      now += MINUTE;
      const report = await clock.tick();
      assert.deepEqual([ran(report), skipped(report)], [[], ["alpha:not-approved"]]);
      await writeApproval(other, env.project, approval);
      now += MINUTE;
      assert.deepEqual(skipped(await clock.tick()), []);
    });

    await t.step(
      "a switch turned off by another process is seen when the handler comes due",
      async () => {
        await switchOff(other, env.project, "bravo", {
          now: () => now,
          projectMemory: (path) => env.host.projectMemory(path),
        });
        now += 60 * MINUTE;
        const report = await clock.tick();
        assert.deepEqual([ran(report), skipped(report)], [["alpha"], ["bravo:switched-off"]]);
        await switchOn(other, env.project, "bravo");
        now += MINUTE;
        assert.deepEqual(ran(await clock.tick()), ["bravo"]);
      },
    );

    await t.step("a project taken off the list by another process is not ticked", async () => {
      assert.equal(await forgetScheduledProject(other, env.project), true);
      now += 61 * MINUTE;
      assert.deepEqual(ran(await clock.tick()), []);
      assert.equal(await addScheduledProject(other, env.project, { now: () => now }), true);
      now += MINUTE;
      assert.deepEqual(ran(await clock.tick()), ["alpha", "bravo"]);
    });
  } finally {
    other.close();
    await clock.stop();
    await env.close();
  }
});
