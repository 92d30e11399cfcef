import assert from "node:assert/strict";
import { join } from "node:path";
import { type PackageSpec, type TestHost, testHost } from "../internal/packages.ts";
import { Clock, type TickReport } from "../../runtime/clock/clock.ts";
import { describeSchedule } from "../../runtime/clock/schedule_view.ts";
import { isSwitchedOff, switchOff, switchOn } from "../../runtime/clock/switch.ts";
import { clockOffKey } from "../../runtime/clock/keys.ts";
import { deleteApproval } from "../../runtime/packages/approval.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { removePackage } from "../../runtime/lifecycle/remove.ts";
import { rememberProject, writeDeclaredIds } from "../../runtime/projects/project.ts";
import { listRecords, projectMemoryPath } from "../../runtime/memory/store.ts";
import { canListOpenFiles, deletedFilesHeldOpen } from "../internal/open_files.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { begunBy } from "../../runtime/agents/mod.ts";
import { listWorkOrders } from "../../runtime/work/mod.ts";
import { performerOver, waitForSession } from "../internal/sessions.ts";
import { needsReview, readStamp } from "../../runtime/clock/stamps.ts";
import {
  forgetScheduledProject,
  listScheduledProjects,
  rememberIfScheduled,
} from "../../runtime/clock/scheduled_projects.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.UTC(2030, 0, 1, 9, 0, 0);

/** Handlers that leave one `<id>.run` record per successful run. */
function service(id: string): string {
  return `
import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "${id}.run": async () => {
      await memory.write({ key: "${id}.run/" + Math.random().toString(36).slice(2), title: "ran" });
    },
    "${id}.other": async () => {
      await memory.write({ key: "${id}.run/" + Math.random().toString(36).slice(2), title: "other" });
    },
    "${id}.fail": () => { throw new Error("the tracker is down"); },
    "${id}.slow": async () => {
      console.log("started");
      await memory.write({ key: "${id}.run/slow", title: "slow" });
      const until = Date.now() + 600;
      while (Date.now() < until) {}
    },
  };
}
`;
}

/** A package whose schedule calls `<id>.<handler>` every `every`. */
function scheduled(id: string, every: string, handler = "run"): PackageSpec {
  return {
    id,
    permissions: ["background", "schedule"],
    handlers: [`${id}.run`, `${id}.other`, `${id}.fail`, `${id}.slow`],
    service: service(id),
    manifest: {
      schedule: [{ handler: `${id}.${handler}`, description: "Checks the tracker", every }],
    },
  };
}

interface Setup {
  env: TestHost;
  clock: Clock;
  lines: string[];
  advance(ms: number): void;
  now(): number;
  runs(id: string, project?: string): Promise<number>;
  close(): Promise<void>;
}

async function setup(): Promise<Setup> {
  let t = START;
  const now = () => t;
  const env = await testHost({ now, limits: { timeoutMs: 1000, workerGraceMs: 500 } });
  const lines: string[] = [];
  const clock = new Clock(env.host, { now, log: (line) => lines.push(line) });
  return {
    env,
    clock,
    lines,
    advance: (ms) => t += ms,
    now,
    async runs(id, project = env.project) {
      const memory = await env.host.projectMemory(project);
      return (await listRecords(memory, { kind: `${id}.run`, limit: 1000 })).records.length;
    },
    async close() {
      await clock.stop();
      await env.close();
    },
  };
}

/** Installs a scheduled package and puts the project on the list, as opening it would. */
async function installScheduled(s: Setup, spec: PackageSpec): Promise<string> {
  const dir = await s.env.install(spec);
  assert.equal(await rememberIfScheduled(s.env.kv, s.env.project, s.env.host), true);
  return dir;
}

function ranIds(report: TickReport): string[] {
  return report.ran.map((r) => r.packageId);
}

Deno.test("clock: never-run runs at the first tick, then not before its interval, then again", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("tracker", "1h"));
    const first = await s.clock.tick();
    assert.deepEqual(ranIds(first), ["tracker"]);
    assert.equal(first.ran[0].overdueMs, null, "never run is the most overdue");
    assert.equal(first.ran[0].outcome, "ok");
    assert.equal(await s.runs("tracker"), 1);

    s.advance(59 * MINUTE);
    assert.deepEqual(ranIds(await s.clock.tick()), []);
    assert.equal(await s.runs("tracker"), 1);

    s.advance(MINUTE);
    assert.deepEqual(ranIds(await s.clock.tick()), ["tracker"]);
    assert.equal(await s.runs("tracker"), 2);

    const receipts = await listReceipts(s.env.kv, s.env.project, { packageId: "tracker" });
    assert.equal(receipts.length, 2);
    assert.ok(receipts.every((r) => r.occasion.kind === "clock" && r.outcome === "ok"));
  } finally {
    await s.close();
  }
});

Deno.test("clock: a project without a schedule is not put on the list", async () => {
  const s = await setup();
  try {
    await s.env.install({
      id: "plain",
      handlers: ["plain.run"],
      service: `export default function register() { return { "plain.run": () => 1 }; }`,
    });
    assert.equal(await rememberIfScheduled(s.env.kv, s.env.project, s.env.host), false);
    assert.deepEqual(await listScheduledProjects(s.env.kv), []);
  } finally {
    await s.close();
  }
});

Deno.test("clock: the stamp is the attempt, so a failing handler waits its interval; three failures need review", async () => {
  const s = await setup();
  try {
    const dir = await installScheduled(s, scheduled("flaky", "1h", "fail"));
    const first = await s.clock.tick();
    assert.equal(first.ran[0].outcome, "failed");
    assert.equal(first.ran[0].error?.name, "HandlerFailedError");
    const stamp = await readStamp(s.env.kv, s.env.project, "flaky", "flaky.fail");
    assert.equal(stamp?.at, START);
    assert.equal(stamp?.outcome, "failed");
    assert.equal(s.lines.filter((l) => l.startsWith("[flaky]")).length, 1);

    for (let i = 0; i < 10; i++) {
      s.advance(MINUTE);
      assert.deepEqual(ranIds(await s.clock.tick()), [], "not retried every minute");
    }
    assert.equal(s.lines.filter((l) => l.startsWith("[flaky]")).length, 1, "reported once");
    assert.equal(await needsReview(s.env.kv, s.env.project, "flaky"), false);

    s.advance(HOUR);
    assert.equal((await s.clock.tick()).ran[0].outcome, "failed");
    assert.equal(await needsReview(s.env.kv, s.env.project, "flaky"), false);
    s.advance(HOUR);
    assert.equal((await s.clock.tick()).ran[0].outcome, "failed");
    assert.equal(await needsReview(s.env.kv, s.env.project, "flaky"), true, "three in a row");
    assert.equal(
      (await describeSchedule(s.env.kv, s.env.project, s.env.host))[0].needsReview,
      true,
    );

    // The author fixes the folder install: its schedule now names a working handler.
    await editManifest(dir, (m) => m.schedule = [{ ...m.schedule[0], handler: "flaky.run" }]);
    s.advance(MINUTE);
    const fixed = await s.clock.tick();
    assert.deepEqual(fixed.ran.map((r) => [r.handler, r.outcome]), [["flaky.run", "ok"]]);
    assert.equal(await needsReview(s.env.kv, s.env.project, "flaky"), false, "a success resets it");
  } finally {
    await s.close();
  }
});

Deno.test("clock: asleep six hours, an hourly handler runs once", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("hourly", "1h"));
    await s.clock.tick();
    s.advance(6 * HOUR);
    assert.deepEqual(ranIds(await s.clock.tick()), ["hourly"]);
    s.advance(MINUTE);
    assert.deepEqual(ranIds(await s.clock.tick()), []);
    assert.equal(await s.runs("hourly"), 2);
  } finally {
    await s.close();
  }
});

Deno.test("clock: one handler at a time for the machine, most overdue first, never-run before all", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("alpha", "2h"));
    await installScheduled(s, scheduled("zeta", "1h"));
    let active = 0;
    let most = 0;
    const order: string[] = [];
    const call = s.env.host.callHandler.bind(s.env.host);
    s.env.host.callHandler = async (...args) => {
      active++;
      most = Math.max(most, active);
      order.push(args[1]);
      try {
        return await call(...args);
      } finally {
        active--;
      }
    };

    // Both never ran: equally overdue, so the order they were found in.
    assert.deepEqual(ranIds(await s.clock.tick()), ["alpha", "zeta"]);

    // Three hours on: zeta (1h) is two hours late, alpha (2h) one.
    s.advance(3 * HOUR);
    await installScheduled(s, scheduled("mid", "1d"));
    assert.deepEqual(ranIds(await s.clock.tick()), ["mid", "zeta", "alpha"]);
    assert.deepEqual(order, ["alpha", "zeta", "mid", "zeta", "alpha"]);
    assert.equal(most, 1, "no two scheduled calls overlapped");

    // Ticks asked for at once wait for each other rather than overlap.
    s.advance(HOUR);
    const [a, b] = await Promise.all([s.clock.tick(), s.clock.tick()]);
    assert.deepEqual(ranIds(a), ["zeta"]);
    assert.deepEqual(ranIds(b), []);
    assert.equal(most, 1);
  } finally {
    await s.close();
  }
});

Deno.test("clock: switching off skips with a receipt and fences a running call; on deletes the exception", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("slow", "1h", "slow"));
    const ticking = s.clock.tick();
    await waitFor(() => s.env.logs.some((l) => l.startsWith("[slow] started")), "slow to start");
    await switchOff(s.env.kv, s.env.project, "slow", s.env.host);
    const fenced = await ticking;
    assert.equal(fenced.ran[0].outcome, "failed");
    assert.equal(fenced.ran[0].error?.name, "SupersededError");
    assert.equal(await s.runs("slow"), 0, "the running call committed nothing");
    const failed = await listReceipts(s.env.kv, s.env.project, { packageId: "slow" });
    assert.equal(failed[0].error?.name, "SupersededError");
    assert.equal(await needsReview(s.env.kv, s.env.project, "slow"), false);

    assert.equal(await isSwitchedOff(s.env.kv, s.env.project, "slow"), true);
    s.advance(HOUR);
    const off = await s.clock.tick();
    assert.deepEqual(ranIds(off), []);
    assert.deepEqual(off.skipped.map((k) => [k.packageId, k.handler, k.reason]), [
      ["slow", "slow.slow", "switched-off"],
    ]);
    s.advance(MINUTE);
    assert.equal((await s.clock.tick()).skipped.length, 1, "still skipped");
    const skips = (await listReceipts(s.env.kv, s.env.project, { packageId: "slow" }))
      .filter((r) => r.outcome === "skipped");
    assert.equal(skips.length, 1, "one receipt when the skip starts, not one a minute");
    assert.equal(skips[0].occasion.kind, "clock");
    assert.equal(skips[0].handler, "slow.slow");
    assert.equal(skips[0].error?.name, "switched-off");

    await switchOn(s.env.kv, s.env.project, "slow");
    const entry = await s.env.kv.get(clockOffKey(s.env.project, "slow"));
    assert.equal(entry.versionstamp, null, "on is the absence of off");
    let stored = 0;
    for await (const _ of s.env.kv.list({ prefix: ["clock_off"] })) stored++;
    assert.equal(stored, 0);
    const on = await s.clock.tick();
    assert.deepEqual(on.ran.map((r) => [r.packageId, r.outcome]), [["slow", "ok"]]);
    assert.equal(await s.runs("slow"), 1);
  } finally {
    await s.close();
  }
});

Deno.test("clock: twelve scheduled projects all tick", async () => {
  const s = await setup();
  const root = await Deno.makeTempDir({ prefix: "sync-clock-" });
  try {
    const dir = await installScheduled(s, scheduled("many", "1h"));
    const projects = [s.env.project];
    for (let i = 1; i < 12; i++) {
      const project = await Deno.realPath(await mkdir(join(root, `project-${i}`)));
      await installPackage(s.env.host, dir, project, { approve: true });
      assert.equal(await rememberIfScheduled(s.env.kv, project, s.env.host), true);
      projects.push(project);
    }
    assert.equal((await listScheduledProjects(s.env.kv)).length, 12);
    const report = await s.clock.tick();
    assert.equal(report.ran.length, 12);
    assert.deepEqual(new Set(report.ran.map((r) => r.project)), new Set(projects));
    assert.ok(report.ran.every((r) => r.outcome === "ok"));
    for (const project of projects) assert.equal(await s.runs("many", project), 1);
  } finally {
    await s.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("clock: a folder install's edited interval is honoured at the next tick", async () => {
  const s = await setup();
  try {
    const dir = await installScheduled(s, scheduled("folder", "2h"));
    await s.clock.tick();
    s.advance(HOUR);
    assert.deepEqual(ranIds(await s.clock.tick()), []);
    await editManifest(dir, (m) => m.schedule[0].every = "1h");
    assert.deepEqual(ranIds(await s.clock.tick()), ["folder"]);
    assert.equal(await s.runs("folder"), 2);
  } finally {
    await s.close();
  }
});

Deno.test("clock: a removed project folder is skipped and stays on the list", async () => {
  const s = await setup();
  const root = await Deno.makeTempDir({ prefix: "sync-clock-" });
  try {
    const dir = await installScheduled(s, scheduled("gone", "1h"));
    const other = await Deno.realPath(await mkdir(join(root, "other")));
    await installPackage(s.env.host, dir, other, { approve: true });
    await rememberIfScheduled(s.env.kv, other, s.env.host);
    await s.env.host.forgetProject(other);
    await Deno.remove(other, { recursive: true });

    const report = await s.clock.tick();
    assert.deepEqual(report.ran.map((r) => r.project), [s.env.project]);
    assert.deepEqual(report.skipped.map((k) => [k.project, k.reason]), [[other, "project-gone"]]);
    const receipts = await listReceipts(s.env.kv, other, { packageId: "gone" });
    assert.deepEqual(receipts.map((r) => [r.outcome, r.error?.name]), [
      ["skipped", "project-gone"],
    ]);
    s.advance(HOUR);
    const again = await s.clock.tick();
    assert.deepEqual(again.skipped.map((k) => k.reason), ["project-gone"]);
    assert.equal(s.lines.filter((l) => l.includes(other)).length, 1, "one line while it is gone");
    assert.deepEqual(
      (await listScheduledProjects(s.env.kv)).map((p) => p.path).sort(),
      [
        s.env.project,
        other,
      ].sort(),
    );

    assert.equal(await forgetScheduledProject(s.env.kv, other), true, "only a person removes it");
    assert.deepEqual((await listScheduledProjects(s.env.kv)).map((p) => p.path), [s.env.project]);
  } finally {
    await s.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("clock: a removed project folder's memory is let go of; made again at the same path, the next tick writes into the new folder", async (t) => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("tracker", "1h"));
    assert.deepEqual(ranIds(await s.clock.tick()), ["tracker"]);
    assert.equal(await runsOnDisk(s.env.project, "tracker"), 1);

    await Deno.remove(s.env.project, { recursive: true });
    s.advance(HOUR);
    const gone = await s.clock.tick();
    assert.deepEqual(gone.skipped.map((k) => k.reason), ["project-gone"]);
    if (await canListOpenFiles()) {
      await t.step("project-gone closes the memory it had open", async () => {
        assert.deepEqual(await deletedFilesHeldOpen(s.env.project), []);
      });
    }

    await Deno.mkdir(s.env.project);
    await writeDeclaredIds(s.env.project, ["tracker"]);
    s.advance(HOUR);
    await t.step("the next tick runs in the new folder and writes into its memory", async () => {
      assert.deepEqual(ranIds(await s.clock.tick()), ["tracker"]);
      assert.equal(await runsOnDisk(s.env.project, "tracker"), 1);
      const receipts = await listReceipts(s.env.kv, s.env.project, { packageId: "tracker" });
      // Newest first: the run in the new folder, the skip while it was gone, the first run.
      assert.deepEqual(receipts.map((r) => r.outcome), ["ok", "skipped", "ok"]);
    });
  } finally {
    await s.close();
  }
});

/** The runs another process (`sync records`) finds in the folder's memory file now. */
async function runsOnDisk(project: string, id: string): Promise<number> {
  using memory = await Deno.openKv(projectMemoryPath(project));
  return (await listRecords(memory, { kind: `${id}.run`, limit: 1000 })).records.length;
}

Deno.test("clock: a package not approved or no longer installed is skipped with a receipt", async () => {
  const s = await setup();
  try {
    const dir = await installScheduled(s, scheduled("loose", "1h"));
    await deleteApproval(s.env.kv, s.env.project, "loose");
    const unapproved = await s.clock.tick();
    assert.deepEqual(unapproved.skipped.map((k) => [k.packageId, k.reason]), [
      ["loose", "not-approved"],
    ]);
    // Approved again, then its linked folder goes away.
    await installPackage(s.env.host, dir, s.env.project, { approve: true });
    await s.clock.tick();
    await Deno.remove(dir, { recursive: true });
    const gone = await s.clock.tick();
    assert.deepEqual(gone.skipped.map((k) => [k.packageId, k.reason]), [
      ["loose", "not-installed"],
    ]);
    const skips = (await listReceipts(s.env.kv, s.env.project, { packageId: "loose" }))
      .filter((r) => r.outcome === "skipped");
    assert.deepEqual(skips.map((r) => r.error?.name).sort(), ["not-approved", "not-installed"]);
    assert.equal(await s.runs("loose"), 1);
  } finally {
    await s.close();
  }
});

Deno.test("clock: ticks with the ids remembered at open, not the repository's file", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("kept", "1h"));
    // The file changes behind the installation's back (a pull, say): the clock
    // does not read it, so the package still ticks until the project is opened.
    await writeDeclaredIds(s.env.project, []);
    assert.deepEqual(ranIds(await s.clock.tick()), ["kept"]);
    await rememberProject(s.env.kv, s.env.project, { now: s.now });
    s.advance(2 * HOUR);
    const after = await s.clock.tick();
    assert.deepEqual([after.ran, after.skipped], [[], []]);
  } finally {
    await s.close();
  }
});

Deno.test("clock: describeSchedule says how often, on or off, and when next due", async () => {
  const s = await setup();
  try {
    await installScheduled(s, {
      ...scheduled("shown", "1h"),
      manifest: {
        name: "Shown",
        schedule: [
          { handler: "shown.run", description: "Checks the tracker", every: "60m" },
          { handler: "shown.other", description: "Tidies old issues", every: "15m" },
        ],
      },
    });
    const before = await describeSchedule(s.env.kv, s.env.project, s.env.host);
    assert.deepEqual(
      before.map((r) => [r.packageId, r.packageName, r.description, r.wording, r.on]),
      [
        ["shown", "Shown", "Checks the tracker", "every hour", true],
        ["shown", "Shown", "Tidies old issues", "every 15 minutes", true],
      ],
    );
    assert.ok(before.every((r) => r.lastAttempt === null && !r.needsReview));
    assert.equal(before[0].nextDue, new Date(START).toISOString(), "never run: due now");

    await s.clock.tick();
    const after = await describeSchedule(s.env.kv, s.env.project, s.env.host);
    assert.equal(after[0].lastAttempt?.outcome, "ok");
    assert.equal(after[0].lastAttempt?.at, new Date(START).toISOString());
    assert.equal(after[0].nextDue, new Date(START + HOUR).toISOString());
    assert.equal(after[1].nextDue, new Date(START + 15 * MINUTE).toISOString());

    await switchOff(s.env.kv, s.env.project, "shown", s.env.host);
    const off = await describeSchedule(s.env.kv, s.env.project, s.env.host);
    assert.deepEqual(off.map((r) => [r.on, r.nextDue]), [[false, null], [false, null]]);
  } finally {
    await s.close();
  }
});

Deno.test("clock: start looks at once and stop (or an abort) ends it", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("started", "1h"));
    const controller = new AbortController();
    s.clock.start({ signal: controller.signal });
    assert.equal(s.clock.running, true);
    await waitFor(async () => await s.runs("started") > 0, "the first look to run it");
    controller.abort();
    assert.equal(s.clock.running, false);
    await s.clock.stop();
  } finally {
    await s.close();
  }
});

async function editManifest(
  dir: string,
  edit: (manifest: { schedule: Array<Record<string, string>> }) => void,
): Promise<void> {
  const file = join(dir, "manifest.json");
  const manifest = JSON.parse(await Deno.readTextFile(file));
  edit(manifest);
  await Deno.writeTextFile(file, JSON.stringify(manifest, null, 2));
}

/** Waits until `ready()` holds, failing after ten seconds rather than hanging. */
async function waitFor(ready: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (!await ready()) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function mkdir(path: string): Promise<string> {
  await Deno.mkdir(path, { recursive: true });
  return path;
}

Deno.test("clock: the stamp is written when the attempt starts, so a timed-out handler waits", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("slow", "1h", "slow"));
    const ticking = s.clock.tick();
    await waitFor(() => s.env.logs.some((l) => l.startsWith("[slow] started")), "slow to start");
    const during = await readStamp(s.env.kv, s.env.project, "slow", "slow.slow");
    assert.equal(during?.outcome, "running", "stamped before the handler finished");
    assert.equal(during?.at, START);
    await ticking;

    await installScheduled(s, {
      ...scheduled("spin", "1h"),
      service: `export default function register() {
  return { "spin.run": () => { while (true) {} }, "spin.other": () => 1, "spin.fail": () => 1, "spin.slow": () => 1 };
}`,
    });
    const first = await s.clock.tick();
    assert.deepEqual(first.ran.map((r) => [r.packageId, r.error?.name]), [
      ["spin", "HandlerTimeoutError"],
    ]);
    s.advance(MINUTE);
    assert.deepEqual(ranIds(await s.clock.tick()), [], "not retried the next minute");
    s.advance(HOUR);
    assert.deepEqual(ranIds(await s.clock.tick()), ["slow", "spin"]);
  } finally {
    await s.close();
  }
});

Deno.test("clock: a 1m handler runs at every look, even one that comes a little early", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("minute", "1m"));
    assert.deepEqual(ranIds(await s.clock.tick()), ["minute"]);
    s.advance(MINUTE - 1);
    assert.deepEqual(ranIds(await s.clock.tick()), ["minute"]);
    s.advance(MINUTE / 4);
    assert.deepEqual(ranIds(await s.clock.tick()), [], "not twice within half a look");
  } finally {
    await s.close();
  }
});

Deno.test("clock: a handler a person is running is tried again at the next look", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("held", "1d", "slow"));
    const person = s.env.call("held", "held.slow");
    await waitFor(() => s.env.logs.some((l) => l.startsWith("[held] started")), "the call");
    const busy = await s.clock.tick();
    assert.deepEqual(busy.ran, []);
    assert.deepEqual(busy.skipped.map((k) => [k.handler, k.reason]), [["held.slow", "busy"]]);
    const [receipt] = await listReceipts(s.env.kv, s.env.project, { packageId: "held" });
    assert.deepEqual([receipt.outcome, receipt.error?.name], ["skipped", "busy"]);
    assert.equal(
      await readStamp(s.env.kv, s.env.project, "held", "held.slow"),
      null,
      "the attempt was taken back",
    );
    await person;
    s.advance(MINUTE);
    const next = await s.clock.tick();
    assert.deepEqual(next.ran.map((r) => [r.packageId, r.outcome]), [["held", "ok"]]);
    assert.equal(await needsReview(s.env.kv, s.env.project, "held"), false);
  } finally {
    await s.close();
  }
});

Deno.test("clock: two clocks on one installation — only the lease holder ticks", async () => {
  const s = await setup();
  const other = new Clock(s.env.host, { now: s.now, log: (line) => s.lines.push(line) });
  try {
    await installScheduled(s, scheduled("once", "1m"));
    assert.deepEqual(ranIds(await s.clock.tick()), ["once"]);
    s.advance(2 * MINUTE);
    const second = await other.tick();
    assert.match(second.elsewhere ?? "", /another Sync process runs the clock/);
    assert.deepEqual(ranIds(second), []);
    assert.equal(s.lines.filter((l) => l.includes("another Sync process")).length, 1);
    // The holder stops and lets go; the other takes over at its next look.
    await s.clock.stop();
    assert.deepEqual(ranIds(await other.tick()), ["once"]);
  } finally {
    await other.stop();
    await s.close();
  }
});

Deno.test("clock: a lease not renewed runs out, and another clock takes over", async () => {
  const s = await setup();
  const other = new Clock(s.env.host, { now: s.now, log: () => {} });
  try {
    await installScheduled(s, scheduled("later", "1h"));
    await s.clock.tick();
    s.advance(2 * MINUTE);
    assert.ok((await other.tick()).elsewhere, "still held two minutes on");
    s.advance(2 * MINUTE);
    const report = await other.tick();
    assert.equal(report.elsewhere, undefined, "taken over once three looks passed");
  } finally {
    await other.stop();
    await s.close();
  }
});

Deno.test("describeSchedule() shows a package that cannot serve, and why", async () => {
  const s = await setup();
  try {
    const dir = await installScheduled(s, scheduled("wide", "1h"));
    await editManifest(dir, (manifest) => {
      (manifest as unknown as { permissions: string[] }).permissions.push("net:example.com");
    });
    const [row] = await describeSchedule(s.env.kv, s.env.project, s.env.host);
    assert.equal(row.packageId, "wide");
    assert.equal(row.blocked?.reason, "not-approved");
    assert.match(row.blocked?.message ?? "", /asks for net:example\.com/);
    assert.equal(row.nextDue, null);
  } finally {
    await s.close();
  }
});

Deno.test("clock: a package removed while the tick runs is not started, and leaves no stamp", async () => {
  const s = await setup();
  try {
    await installScheduled(s, scheduled("first", "1h", "slow"));
    await installScheduled(s, scheduled("second", "1h"));
    const ticking = s.clock.tick();
    await waitFor(() => s.env.logs.some((l) => l.startsWith("[first] started")), "first to start");
    await removePackage(s.env.host, "second", s.env.project);
    const report = await ticking;
    assert.deepEqual(ranIds(report), ["first"]);
    assert.equal(await readStamp(s.env.kv, s.env.project, "second", "second.run"), null);
    assert.equal(await s.runs("second"), 0);
  } finally {
    await s.close();
  }
});

Deno.test("clock: each log entry is one line, whatever a failing handler's message holds", async () => {
  const s = await setup();
  try {
    await installScheduled(s, {
      id: "forger",
      permissions: ["background", "schedule"],
      handlers: ["forger.fail"],
      service: `export default function register() {
  return { "forger.fail": () => { throw new Error("down\\n[other] forged\\u001b[2J\\u202e"); } };
}
`,
      manifest: { schedule: [{ handler: "forger.fail", description: "Fails", every: "1h" }] },
    });
    const report = await s.clock.tick();
    assert.equal(report.ran[0]?.outcome, "failed");
    // The report and the receipt keep the message as the handler threw it.
    assert.ok(report.ran[0].error?.message.endsWith("down\n[other] forged\u001b[2J\u202e"));
    assert.ok(s.lines.length > 0);
    for (const line of s.lines) {
      // deno-lint-ignore no-control-regex
      assert.ok(!/[\n\r\u001b\u202e]/.test(line), `a raw control in ${JSON.stringify(line)}`);
    }
    const failed = s.lines.filter((line) => line.startsWith("[forger] forger.fail failed"));
    assert.equal(failed.length, 1, s.lines.join("\n"));
    assert.ok(failed[0].endsWith(String.raw`down\n[other] forged\u001b[2J\u202e`));
  } finally {
    await s.close();
  }
});

Deno.test("clock: work a scheduled handler orders says it was begun on the clock, by which handler, and when", async (t) => {
  const s = await setup();
  const work = performerOver(s.env.host);
  try {
    await installScheduled(s, {
      id: "sweeper",
      permissions: ["background", "schedule", "work.agent"],
      handlers: ["sweeper.sweep"],
      service: `import { work } from "@sync/extension-api/service";
export default function register() {
  return {
    "sweeper.sweep": async () => (await work.order({
      kind: "agent.session",
      agent: "demo",
      title: "Sweep issue 7",
      prompt: { text: "Look at issue 7" },
      onInterrupted: "continue",
      about: "issues.issue/7",
    })).key,
  };
}
`,
      manifest: {
        schedule: [{ handler: "sweeper.sweep", description: "Sweeps new issues", every: "1h" }],
      },
    });
    const report = await s.clock.tick();
    assert.deepEqual(report.ran.map((r) => [r.handler, r.outcome]), [["sweeper.sweep", "ok"]]);
    const expected = {
      kind: "handler",
      extensionId: "sweeper",
      extensionName: "Sweeper",
      handler: "sweeper.sweep",
      occasion: { kind: "clock" },
      calledBy: { kind: "clock" },
      calledAt: new Date(START).toISOString(),
      description: "Sweeps new issues",
    };

    const memory = await s.env.host.projectMemory(s.env.project);
    const [order] = await listWorkOrders(memory);
    await t.step(
      "the order's source names the clock, the handler, its row and the call's time",
      () => {
        assert.deepEqual(order.source, expected);
        assert.equal(order.about, "issues.issue/7");
      },
    );

    await t.step(
      "the session performing it carries the same source and what it is about",
      async () => {
        await work.start();
        const session = await waitForSession(s.env.kv, s.env.project, order.key, () => true);
        assert.deepEqual(session.source, expected);
        assert.equal(session.about, "issues.issue/7");
        assert.equal(
          begunBy(session, { when: (at) => at.toISOString() }),
          `Begun by the Sweeper sweep on the clock at ${new Date(START).toISOString()}`,
        );
      },
    );
  } finally {
    await work.stop();
    await s.close();
  }
});
