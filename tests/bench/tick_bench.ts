/**
 * The cost of one look of the clock over many scheduled projects: 1,000
 * projects with 5 scheduled packages each, with nothing due and with 10
 * handlers due, and the same at 100 projects so growth can be seen. After the
 * benches it prints each tick's cost per project. See `docs/benchmarks.md`.
 *
 * @module
 */
import { join } from "node:path";
import { Clock } from "../../runtime/clock/clock.ts";
import { Host } from "../../runtime/host/host.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import type { ScheduleStamp } from "../../runtime/clock/stamps.ts";
import { clockChangedKey, scheduleStampKey } from "../../runtime/clock/keys.ts";
import {
  addScheduledCopy,
  BENCH_PACKAGES,
  installScheduledPackages,
} from "./scheduled_installation.ts";

const HOUR = 3_600_000;
const START = Date.UTC(2030, 0, 1, 9, 0, 0);

function service(id: string): string {
  return `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "${id}.poll": async () => {
      await memory.write({ key: "${id}.seen/last", title: "polled" });
    },
  };
}
`;
}

/** A successful attempt at `at`. */
function stampAt(at: number): ScheduleStamp {
  return { at, startedAt: at, endedAt: at, outcome: "ok" };
}

interface Fixture {
  host: Host;
  clock: Clock;
  projects: string[];
  /** Makes the first `count` projects' `alpha.poll` due again. */
  makeDue(count: number): Promise<void>;
}

/**
 * An installation with `count` scheduled projects, each with every bench
 * package installed and approved and every handler attempted an hour ago
 * less a minute, so nothing is due.
 */
async function fixture(root: string, count: number): Promise<Fixture> {
  const kv = await Deno.openKv(":memory:");
  let t = START;
  const now = () => t;
  const host = new Host({
    kv,
    home: join(root, "home"),
    now,
    limits: { ...DEFAULT_LIMITS, rateLimit: 1_000_000 },
    log: () => {},
  });
  const first = join(root, "projects", "p0000");
  await Deno.mkdir(first, { recursive: true });
  const approvals = await installScheduledPackages(host, root, first, service, START);
  const projects: string[] = [await Deno.realPath(first)];
  for (let i = 1; i < count; i++) {
    const dir = join(root, "projects", `p${String(i).padStart(4, "0")}`);
    await Deno.mkdir(dir, { recursive: true });
    const path = await Deno.realPath(dir);
    await addScheduledCopy(kv, path, approvals, now);
    projects.push(path);
  }
  const attempted = START - HOUR + 60_000;
  for (const project of projects) {
    for (const id of BENCH_PACKAGES) {
      await kv.set(scheduleStampKey(project, id, `${id}.poll`), stampAt(attempted));
    }
  }
  t = START;
  const clock = new Clock(host, { now, log: () => {} });
  return {
    host,
    clock,
    projects,
    async makeDue(due) {
      // Stamps moved back by hand, as no clock moves them: the change key
      // says so, as every writer but the clock's own looks does.
      for (const project of projects.slice(0, due)) {
        await kv.atomic()
          .set(scheduleStampKey(project, "alpha", "alpha.poll"), stampAt(START - 2 * HOUR))
          .set(clockChangedKey(), true)
          .commit();
      }
    },
  };
}

const root = await Deno.makeTempDir({ prefix: "sync-tick-bench-" });
const small = await fixture(join(root, "small"), 100);
const large = await fixture(join(root, "large"), 1000);
// One call warms the pool, so the benches time ticks rather than worker start.
await large.makeDue(1);
await large.clock.tick();

/** Ticks timed in each bench, for the per-project summary. */
const timings = new Map<string, { projects: number; ms: number[] }>();

function timed(name: string, f: Fixture, due: number): void {
  Deno.bench({ name, group: "clock tick", n: 10, warmup: 1 }, async (b) => {
    if (due) await f.makeDue(due);
    b.start();
    const started = performance.now();
    const report = await f.clock.tick();
    const ms = performance.now() - started;
    b.end();
    if (report.ran.length !== due) {
      throw new Error(`expected ${due} handlers to run, ${report.ran.length} did`);
    }
    const entry = timings.get(name) ?? { projects: f.projects.length, ms: [] };
    entry.ms.push(ms);
    timings.set(name, entry);
  });
}

timed("100 projects × 5 packages, nothing due", small, 0);
timed("1,000 projects × 5 packages, nothing due", large, 0);
timed("1,000 projects × 5 packages, 10 due", large, 10);

globalThis.addEventListener("unload", () => {
  console.log("\nclock tick: cost per project (mean over the timed ticks)");
  for (const [name, { projects, ms }] of timings) {
    const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
    console.log(
      `  ${name.padEnd(42)} ${mean.toFixed(1).padStart(8)} ms per tick  ` +
        `${(mean * 1000 / projects).toFixed(0).padStart(6)} µs per project`,
    );
  }
  for (const f of [small, large]) {
    f.host.close();
    f.host.kv.close();
  }
  Deno.removeSync(root, { recursive: true });
});
