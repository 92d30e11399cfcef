import assert from "node:assert/strict";
import { join } from "node:path";
import { type LampFacts, lampOf, readLamp } from "../../runtime/extensions/mod.ts";
import { installPackage, openProject, removePackage } from "../../runtime/lifecycle/mod.ts";
import { readApproval } from "../../runtime/packages/mod.ts";
import { switchOff } from "../../runtime/clock/mod.ts";
import { beginAttempt, endAttempt } from "../../runtime/clock/stamps.ts";
import { holdHandler } from "../../runtime/host/running_claim.ts";
import { runningClaimKey } from "../../runtime/host/keys.ts";
import { writeDeclaredIds } from "../../runtime/projects/mod.ts";
import { testHost, writePackage } from "../internal/packages.ts";
import { FAILING_AFTER } from "../../runtime/extensions/failing_handlers.ts";
import { listReceipts, RECEIPTS_KEPT, writeReceipt } from "../../runtime/host/receipts.ts";
import { readHandlerRuns } from "../../runtime/host/handler_runs.ts";
import { newId } from "../../runtime/internal/id.ts";
import type { Receipt } from "../../runtime/types.ts";

const SCHEDULED = {
  permissions: ["background", "schedule"],
  handlers: ["tick.run"],
  service: `export default function register() { return { "tick.run": () => null }; }`,
  manifest: { schedule: [{ handler: "tick.run", description: "Ticks", every: "1h" }] },
};

/** Three scheduled attempts of `tick.run` that failed, as the clock records them. */
async function failThreeTimes(kv: Deno.Kv, project: string): Promise<void> {
  let previousAt: number | null = null;
  for (let i = 1; i <= 3; i++) {
    const begun = await beginAttempt(kv, project, "tick", "tick.run", {
      at: i * 1000,
      startedAt: i * 1000,
      previousAt,
    });
    assert.ok(begun);
    await endAttempt(kv, project, "tick", "tick.run", begun, {
      outcome: "failed",
      endedAt: i * 1000 + 10,
      error: { name: "Error", message: "tracker down" },
    });
    previousAt = i * 1000;
  }
}

Deno.test("readLamp() shows each state of a package in a project", async (t) => {
  const env = await testHost();
  const now = () => Date.now();
  try {
    await t.step("steady: installed, approved, nothing running, nothing to do", async () => {
      await env.install({ id: "tick", ...SCHEDULED });
      const lamp = await readLamp(env.kv, env.project, "tick", { now });
      assert.deepEqual(lamp, { state: "steady", label: "ready", notices: [], running: [] });
    });

    await t.step("breathing: one of its handlers holds a running claim", async () => {
      const hold = await holdHandler(env.kv, runningClaimKey(env.project, "tick", "tick.run"), {
        now,
        forMs: 60_000,
      });
      assert.ok(hold);
      try {
        const lamp = await readLamp(env.kv, env.project, "tick", { now });
        assert.equal(lamp.state, "breathing");
        assert.equal(lamp.label, "running now");
        assert.deepEqual(lamp.running, ["tick.run"]);
      } finally {
        await hold.release();
      }
      assert.equal((await readLamp(env.kv, env.project, "tick", { now })).state, "steady");
    });

    await t.step("a claim past its term (its process stopped) does not breathe", async () => {
      const hold = await holdHandler(env.kv, runningClaimKey(env.project, "tick", "tick.run"), {
        now,
        forMs: 60_000,
      });
      assert.ok(hold);
      try {
        const later = () => Date.now() + 120_000;
        assert.equal((await readLamp(env.kv, env.project, "tick", { now: later })).state, "steady");
      } finally {
        await hold.release();
      }
    });

    await t.step("red: three scheduled failures in a row, with what to do", async () => {
      await failThreeTimes(env.kv, env.project);
      const lamp = await readLamp(env.kv, env.project, "tick", { now });
      assert.equal(lamp.state, "red");
      assert.equal(lamp.label, "needs you");
      assert.equal(lamp.notices.length, 1);
      assert.equal(lamp.notices[0].reason, "needs-review");
      assert.match(lamp.notices[0].text, /last three scheduled attempts failed/);
      assert.match(lamp.notices[0].text, /switch its clock off/);
    });

    await t.step("breathing wins over red while a handler runs; the notice stays", async () => {
      const hold = await holdHandler(env.kv, runningClaimKey(env.project, "tick", "tick.run"), {
        now,
        forMs: 60_000,
      });
      assert.ok(hold);
      try {
        const lamp = await readLamp(env.kv, env.project, "tick", { now });
        assert.equal(lamp.state, "breathing");
        assert.deepEqual(lamp.notices.map((n) => n.reason), ["needs-review"]);
      } finally {
        await hold.release();
      }
    });

    await t.step("paused: switched off; failing attempts no longer make it red", async () => {
      await switchOff(env.kv, env.project, "tick", env.host);
      const lamp = await readLamp(env.kv, env.project, "tick", { now });
      assert.deepEqual(lamp, {
        state: "paused",
        label: "paused in this project",
        notices: [],
        running: [],
      });
    });

    await t.step("dark: listed here but not on this machine", async () => {
      await writeDeclaredIds(env.project, ["tick", "ghost"]);
      const lamp = await readLamp(env.kv, env.project, "ghost", { now });
      assert.equal(lamp.state, "dark");
      assert.equal(lamp.notices[0].reason, "not-on-machine");
      assert.match(lamp.notices[0].text, /Install it here with Install…/);
      assert.doesNotMatch(lamp.notices[0].text, /sync |--/);
    });

    await t.step("dark: on this machine but not approved for this project", async () => {
      const other = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-lamp-" }));
      try {
        await writeDeclaredIds(other, ["tick"]);
        // Dark wins over everything else that holds there.
        await switchOff(env.kv, other, "tick", env.host);
        const lamp = await readLamp(env.kv, other, "tick", { now });
        assert.equal(lamp.state, "dark");
        assert.equal(lamp.label, "not set up here");
        assert.deepEqual(lamp.notices.map((n) => n.reason), ["not-approved"]);
        assert.match(lamp.notices[0].text, /approve what its install card asks for/);
        assert.doesNotMatch(lamp.notices[0].text, /sync |--/);
      } finally {
        await Deno.remove(other, { recursive: true });
      }
    });
  } finally {
    await env.close();
  }
});

Deno.test("readLamp() is red for a lifecycle handler that failed, until one succeeds", async () => {
  const env = await testHost();
  const now = () => Date.now();
  try {
    const dir = await env.install({
      id: "door",
      handlers: ["door.opened"],
      service: `export default function register() { return { "door.opened": () => null }; }`,
      manifest: { lifecycle: { opened: "door.opened" } },
    });
    await openProject(env.host, env.project);
    assert.equal((await readLamp(env.kv, env.project, "door", { now })).state, "steady");
    await Deno.writeTextFile(
      join(dir, "service", "index.js"),
      `export default function register() {
  return { "door.opened": () => { throw new Error("the door is stuck"); } };
}`,
    );
    await openProject(env.host, env.project);
    const lamp = await readLamp(env.kv, env.project, "door", { now });
    assert.equal(lamp.state, "red");
    assert.equal(lamp.notices[0].reason, "lifecycle-failed");
    assert.match(lamp.notices[0].text, /opened handler door\.opened failed/);
    assert.match(lamp.notices[0].text, /the door is stuck/);
    assert.match(lamp.notices[0].text, /open the project again/);
    await Deno.writeTextFile(
      join(dir, "service", "index.js"),
      `export default function register() { return { "door.opened": () => null }; }`,
    );
    await openProject(env.host, env.project);
    assert.equal((await readLamp(env.kv, env.project, "door", { now })).state, "steady");
  } finally {
    await env.close();
  }
});

Deno.test("readLamp() is red while an update that widens permissions waits", async () => {
  const env = await testHost();
  const now = () => Date.now();
  const spec = {
    id: "feed",
    handlers: ["feed.read"],
    service: `export default function register() { return { "feed.read": () => null }; }`,
  };
  try {
    await env.install(spec);
    const wider = await writePackage(join(env.home, "..", "packages"), {
      ...spec,
      version: "2.0.0",
      permissions: ["background", "net:api.example.com"],
    });
    // Another folder of the id: the person agreed to replace; approval still waits.
    await assert.rejects(installPackage(env.host, wider, env.project, { replace: true }), {
      name: "ApprovalRequiredError",
    });
    const lamp = await readLamp(env.kv, env.project, "feed", { now });
    assert.equal(lamp.state, "red");
    assert.equal(lamp.notices[0].reason, "awaits-approval");
    assert.match(lamp.notices[0].text, /Update 2\.0\.0 waits for your approval/);
    assert.match(lamp.notices[0].text, /net:api\.example\.com/);
    assert.match(lamp.notices[0].text, /1\.0\.0 keeps serving/);
    // The window shows it, beside the Approve button: no command line.
    assert.match(lamp.notices[0].text, /Approve it on its page\.$/);
    assert.doesNotMatch(lamp.notices[0].text, /sync |--|install card/);
  } finally {
    await env.close();
  }
});

Deno.test("readLamp() is red while a linked folder's manifest cannot be read, and says to fix it", async () => {
  const env = await testHost();
  const now = () => Date.now();
  try {
    const dir = await env.install({
      id: "hello",
      handlers: ["hello.greet"],
      service: `export default function register() { return { "hello.greet": () => null }; }`,
    });
    const manifest = join(dir, "manifest.json");
    const good = await Deno.readTextFile(manifest);
    await Deno.writeTextFile(manifest, "{ broken");
    const lamp = await readLamp(env.kv, env.project, "hello", { now });
    assert.equal(lamp.state, "red");
    assert.equal(lamp.notices[0].reason, "cannot-load");
    assert.match(lamp.notices[0].text, /^hello cannot be read: [^]*not valid JSON/);
    assert.match(lamp.notices[0].text, /Fix its folder: Sync reads it again as it changes\./);
    assert.doesNotMatch(lamp.notices[0].text, /sync |--approve/);
    await Deno.writeTextFile(manifest, good);
    assert.equal((await readLamp(env.kv, env.project, "hello", { now })).state, "steady");
  } finally {
    await env.close();
  }
});

Deno.test("lampOf() decides by one precedence: dark, breathing, red, paused, steady", () => {
  const base: LampFacts = {
    id: "p",
    project: "/p",
    serving: { state: "approved" },
    switchedOff: false,
    needsReview: false,
    running: [],
    failedLifecycle: null,
  };
  const awaiting: LampFacts["serving"] = {
    state: "awaits-approval",
    version: "2.0.0",
    widened: ["work.agent"],
    serves: "1.0.0",
  };
  const cases: [string, Partial<LampFacts>, string][] = [
    ["nothing holds", {}, "steady"],
    ["switched off", { switchedOff: true }, "paused"],
    ["failing while on", { needsReview: true }, "red"],
    ["failing while off", { needsReview: true, switchedOff: true }, "paused"],
    ["awaiting while off", { serving: awaiting, switchedOff: true }, "red"],
    ["cannot load", { serving: { state: "cannot-load", message: "gone" } }, "red"],
    ["running and awaiting", { serving: awaiting, running: ["p.x"] }, "breathing"],
    ["running and off", { switchedOff: true, running: ["p.x"] }, "breathing"],
    ["not approved and running", { serving: { state: "not-approved" }, running: ["p.x"] }, "dark"],
    ["not on machine", { serving: { state: "not-on-machine" } }, "dark"],
  ];
  for (const [what, facts, state] of cases) {
    assert.equal(lampOf({ ...base, ...facts }).state, state, what);
  }
});

const PAIR = {
  id: "pair",
  permissions: ["background", "schedule"],
  handlers: ["pair.flaky", "pair.fine"],
  service: `export default function register() {
  return {
    "pair.flaky": (p) => { if (p?.fail) throw new Error("the tracker answered 503"); return "ok"; },
    "pair.fine": () => "fine",
  };
}`,
  manifest: { schedule: [{ handler: "pair.fine", description: "Works", every: "1h" }] },
};

/** A receipt of `pair` as a call leaves it, ended `outcome`, written to the installation. */
async function pairReceipt(
  kv: Deno.Kv,
  project: string,
  at: number,
  change: Partial<Receipt>,
): Promise<void> {
  const stamp = new Date(at).toISOString();
  await writeReceipt(kv, {
    id: newId(at),
    project,
    packageId: "pair",
    handler: "pair.flaky",
    occasion: { kind: "clock" },
    startedAt: stamp,
    endedAt: stamp,
    outcome: "failed",
    error: { name: "HandlerFailedError", message: "Error: down" },
    ...change,
  });
}

Deno.test("readLamp() is red for a handler that failed again and again, whatever its siblings do", async (t) => {
  const env = await testHost();
  const now = () => Date.now();
  const lamp = () => readLamp(env.kv, env.project, "pair", { now });
  const flaky = (fail: boolean) =>
    env.call("pair", "pair.flaky", { fail }).then(() => "ok", (error) => error.name);
  try {
    await env.install(PAIR);

    await t.step(`under ${FAILING_AFTER} failures in a row, it stays steady`, async () => {
      for (let i = 0; i < FAILING_AFTER - 1; i++) {
        assert.equal(await flaky(true), "HandlerFailedError");
        assert.equal(await env.call("pair", "pair.fine"), "fine");
      }
      assert.equal((await lamp()).state, "steady");
    });

    await t.step(
      "four failures of one handler, between a sibling's successes: red, naming it",
      async () => {
        assert.equal(await flaky(true), "HandlerFailedError");
        assert.equal(await env.call("pair", "pair.fine"), "fine");
        assert.equal(await flaky(true), "HandlerFailedError");
        assert.equal(await env.call("pair", "pair.fine"), "fine");
        const red = await lamp();
        assert.equal(red.state, "red");
        assert.deepEqual(red.notices.map((n) => [n.reason, n.handler]), [
          ["handler-failing", "pair.flaky"],
        ]);
        assert.match(red.notices[0].text, /^Its handler pair\.flaky failed its last 3 attempts/);
        assert.match(red.notices[0].text, /the last, called by a person or a screen: /);
        assert.match(
          red.notices[0].text,
          /: Handler pair\.flaky failed: .*the tracker answered 503/,
        );
        assert.doesNotMatch(red.notices[0].text, /HandlerFailedError|\d{4}-\d\d-\d\dT/);
      },
    );

    await t.step("its next success clears it", async () => {
      assert.equal(await flaky(false), "ok");
      assert.deepEqual(await lamp(), { state: "steady", label: "ready", notices: [], running: [] });
    });

    await t.step("refusals and interrupted attempts neither count nor break the row", async () => {
      const at = Date.now() + 1000;
      await pairReceipt(env.kv, env.project, at, {});
      await pairReceipt(env.kv, env.project, at + 1, {
        error: { name: "SupersededError", message: "switched off meanwhile" },
      });
      await pairReceipt(env.kv, env.project, at + 2, {});
      await pairReceipt(env.kv, env.project, at + 3, { outcome: "interrupted" });
      await pairReceipt(env.kv, env.project, at + 4, {
        error: { name: "RateLimitedError", message: "too often" },
      });
      assert.equal((await lamp()).state, "steady", "two that count");
      await pairReceipt(env.kv, env.project, at + 5, {
        endedAt: "2030-01-01T03:00:00.000Z",
        error: { name: "HandlerTimeoutError", message: "ran past 5 s" },
      });
      const red = await lamp();
      assert.equal(red.state, "red");
      assert.match(red.notices[0].text, /the last, on the clock: ran past 5 s\. /);
      assert.match(red.notices[0].text, /ran past 5 s\. .*switch its clock off/);
    });

    await t.step(
      "switched off, failures on the clock pause; an agent's failure stays red",
      async () => {
        await switchOff(env.kv, env.project, "pair", env.host);
        assert.equal((await lamp()).state, "paused");
        await pairReceipt(env.kv, env.project, Date.now() + 2000, { occasion: { kind: "agent" } });
        const red = await lamp();
        assert.equal(red.state, "red");
        assert.match(red.notices[0].text, /the last, called by an agent: Error: down\. /);
      },
    );
  } finally {
    await env.close();
  }
});

Deno.test("readLamp() keeps a failing handler red however many receipts its siblings write", async (t) => {
  const env = await testHost();
  const now = () => Date.now();
  const lamp = () => readLamp(env.kv, env.project, "pair", { now });
  try {
    await env.install(PAIR);

    await t.step("three real failures of one handler turn it red", async () => {
      for (let i = 0; i < FAILING_AFTER; i++) {
        await assert.rejects(
          env.call("pair", "pair.flaky", { fail: true }),
          /tracker answered 503/,
        );
      }
      assert.deepEqual((await lamp()).notices.map((n) => n.handler), ["pair.flaky"]);
    });

    await t.step(
      "600 receipts of its sibling, successes and refusals, scroll its failures out: still red",
      async () => {
        assert.equal(await env.call("pair", "pair.fine"), "fine");
        const from = Date.now() + 1000;
        for (let i = 0; i < 600; i++) {
          await pairReceipt(env.kv, env.project, from + i, {
            handler: "pair.fine",
            ...(i % 2 === 0
              ? { outcome: "ok", error: undefined }
              : { error: { name: "RateLimitedError", message: "too often" } }),
          });
        }
        const kept = await listReceipts(env.kv, env.project, {
          packageId: "pair",
          limit: RECEIPTS_KEPT + 100,
        });
        assert.ok(kept.length <= RECEIPTS_KEPT + 50, `${kept.length} receipts kept`);
        assert.ok(!kept.some((r) => r.handler === "pair.flaky"), "its failures are trimmed");
        const red = await lamp();
        assert.equal(red.state, "red");
        assert.deepEqual(red.notices.map((n) => [n.reason, n.handler]), [
          ["handler-failing", "pair.flaky"],
        ]);
        assert.match(red.notices[0].text, /called by a person or a screen: .*tracker answered 503/);
      },
    );

    await t.step("one success of the handler clears it", async () => {
      assert.equal(await env.call("pair", "pair.flaky", { fail: false }), "ok");
      assert.deepEqual(await lamp(), { state: "steady", label: "ready", notices: [], running: [] });
    });
  } finally {
    await env.close();
  }
});

Deno.test("readLamp() does not hold an earlier install's failures against a fresh one", async (t) => {
  const env = await testHost();
  const now = () => Date.now();
  const lamp = () => readLamp(env.kv, env.project, "pair", { now });
  try {
    const dir = await env.install(PAIR);

    await t.step("removed and installed again after three failures: steady", async () => {
      for (let i = 0; i < FAILING_AFTER; i++) {
        await assert.rejects(
          env.call("pair", "pair.flaky", { fail: true }),
          /tracker answered 503/,
        );
      }
      assert.equal((await lamp()).state, "red");
      await removePackage(env.host, "pair", env.project);
      assert.equal((await readHandlerRuns(env.kv, env.project, "pair")).size, 0);
      await installPackage(env.host, dir, env.project, { approve: true });
      assert.deepEqual(await lamp(), { state: "steady", label: "ready", notices: [], running: [] });
    });

    await t.step("failures that started before the project approved it do not count", async () => {
      const before = Date.parse((await readApproval(env.kv, env.project, "pair"))!.approvedAt);
      for (let i = FAILING_AFTER; i > 0; i--) {
        await pairReceipt(env.kv, env.project, before - i * 1000, { occasion: { kind: "agent" } });
      }
      assert.equal((await lamp()).state, "steady");
      await pairReceipt(env.kv, env.project, Date.now() + 1000, { occasion: { kind: "agent" } });
      assert.equal((await lamp()).state, "steady", "one since then of three");
      await pairReceipt(env.kv, env.project, Date.now() + 2000, { occasion: { kind: "agent" } });
      await pairReceipt(env.kv, env.project, Date.now() + 3000, { occasion: { kind: "agent" } });
      assert.equal((await lamp()).state, "red", "three since then");
    });
  } finally {
    await env.close();
  }
});
