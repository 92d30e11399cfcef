/**
 * Goals 8a and 8b: one look of the clock over many scheduled projects with nothing
 * due, with the installation KV on disk. One installation is grown from 100
 * projects (5 scheduled packages each) to 1,000 and then to 10,000, and timed
 * at each size, so the cost per project shows whether it stays flat. Growing
 * it is itself timed; when 10,000 would take longer than the setup budget,
 * the largest size is 3,000 and the report says so. See `docs/benchmarks.md`.
 *
 * @module
 */
import { join } from "node:path";
import { Clock } from "../../runtime/clock/clock.ts";
import { scheduleStampKey } from "../../runtime/clock/keys.ts";
import type { ScheduleStamp } from "../../runtime/clock/stamps.ts";
import { Host } from "../../runtime/host/host.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { openInstallation } from "../../runtime/projects/home.ts";
import type { Goal, ReportLine } from "./goal_report.ts";
import { timingOf } from "./sample.ts";
import {
  addScheduledCopy,
  BENCH_PACKAGES,
  installScheduledPackages,
} from "./scheduled_installation.ts";

const HOUR = 3_600_000;
const START = Date.UTC(2030, 0, 1, 9, 0, 0);
const FULL = 10_000;
const FALLBACK = 3_000;

/** A service module whose one handler does nothing: no tick here runs it. */
function service(id: string): string {
  return `export default function register() {\n  return { "${id}.poll": () => null };\n}\n`;
}

/** Options for {@linkcode measureTick}. */
export interface TickOptions {
  /** The longest growing the installation to 10,000 projects may be projected to take, in s. */
  setupBudgetSeconds?: number;
  /** Told what the run is doing before each long step (growing the installation, ticking). */
  progress?: (line: string) => void;
}

/** What {@linkcode measureTick} measured. */
export interface TickResult {
  lines: ReportLine[];
  goals: Goal[];
  /** Notes on how the run went, such as a smaller largest size. */
  notes: string[];
}

/** A successful attempt 59 minutes before the clock's time: nothing is due. */
const NOT_DUE: ScheduleStamp = (() => {
  const at = START - HOUR + 60_000;
  return { at, startedAt: at, endedAt: at, outcome: "ok" };
})();

/** Times `ticks` looks of `clock`, each checked to have run nothing; returns ms per tick. */
async function timeTicks(clock: Clock, ticks: number): Promise<number[]> {
  await clock.tick();
  const taken: number[] = [];
  for (let i = 0; i < ticks; i++) {
    const started = performance.now();
    const report = await clock.tick();
    taken.push(performance.now() - started);
    if (report.ran.length) {
      throw new Error(`a tick ran ${report.ran.length} handlers; none are due`);
    }
  }
  return taken;
}

/** Grows an installation on disk and times a tick at 100, 1,000 and the largest size. */
export async function measureTick(options: TickOptions = {}): Promise<TickResult> {
  const budget = options.setupBudgetSeconds ?? 240;
  const root = await Deno.makeTempDir({ prefix: "sync-tick-bench-" });
  const kv = await openInstallation(join(root, "home"));
  const now = () => START;
  const host = new Host({
    kv,
    home: join(root, "home"),
    now,
    limits: { ...DEFAULT_LIMITS, rateLimit: 1e9 },
    log: () => {},
  });
  try {
    const first = join(root, "projects", "p00000");
    await Deno.mkdir(first, { recursive: true });
    const approvals = await installScheduledPackages(host, root, first, service, START);
    let count = 0;
    /** Adds projects until there are `target`; returns the seconds it took. */
    const growTo = async (target: number): Promise<number> => {
      const started = performance.now();
      for (; count < target; count++) {
        let path: string;
        if (count === 0) {
          path = await Deno.realPath(first);
        } else {
          const dir = join(root, "projects", `p${String(count).padStart(5, "0")}`);
          await Deno.mkdir(dir, { recursive: true });
          path = await Deno.realPath(dir);
          await addScheduledCopy(kv, path, approvals, now);
        }
        const stamps = kv.atomic();
        for (const id of BENCH_PACKAGES) {
          stamps.set(scheduleStampKey(path, id, `${id}.poll`), NOT_DUE);
        }
        await stamps.commit();
      }
      return (performance.now() - started) / 1000;
    };

    const clock = new Clock(host, { now, log: () => {} });
    const lines: ReportLine[] = [];
    const notes: string[] = [];
    const perProject = new Map<number, number>();
    const measureAt = async (size: number, ticks: number) => {
      const timing = timingOf(await timeTicks(clock, ticks));
      lines.push({
        name: `clock tick, ${size.toLocaleString("en")} projects × 5, none due`,
        timing,
      });
      perProject.set(size, timing.p50 / size);
      return timing;
    };

    const progress = options.progress ?? (() => {});
    progress("growing an installation on disk to 100 projects, then timing ticks");
    const setup100 = await growTo(100);
    await measureAt(100, 20);
    progress("growing it to 1,000 projects");
    const setup1000 = await growTo(1_000);
    const at1000 = await measureAt(1_000, 10);
    const secondsPerProject = setup1000 / 900;
    const projected = secondsPerProject * (FULL - 1_000);
    const largest = projected <= budget ? FULL : FALLBACK;
    if (largest !== FULL) {
      notes.push(
        `10,000 projects would take about ${projected.toFixed(0)} s more to set up ` +
          `(${(secondsPerProject * 1000).toFixed(1)} ms a project, over the ${budget} s budget): ` +
          `the largest size is ${FALLBACK.toLocaleString("en")}`,
      );
    }
    progress(
      `growing it to ${largest.toLocaleString("en")} projects ` +
        `(about ${Math.ceil(secondsPerProject * (largest - 1_000))} s)`,
    );
    const setupLargest = await growTo(largest);
    await measureAt(largest, 5);
    notes.push(
      `setup on disk: 100 projects ${setup100.toFixed(1)} s, to 1,000 ${setup1000.toFixed(1)} s, ` +
        `to ${largest.toLocaleString("en")} ${setupLargest.toFixed(1)} s ` +
        `(${(secondsPerProject * 1000).toFixed(1)} ms a project)`,
    );

    // Sizes in the order measured, smallest first: flat means no size costs
    // more per project than a smaller one did; a fixed cost per tick, which
    // weighs most at 100, makes the cost fall, and a falling cost is flat too.
    const costs = [...perProject.values()];
    const growth = Math.max(
      ...costs.flatMap((cost, i) => costs.slice(0, i).map((smaller) => cost / smaller)),
    );
    const describe = [...perProject].map(([size, ms]) =>
      `${size.toLocaleString("en")}: ${(ms * 1000).toFixed(0)} µs`
    ).join(", ");
    const goals: Goal[] = [
      {
        name: "8a. clock tick, 1,000 projects × 5 packages, none due",
        formula: "one tick, p50",
        measured: at1000.p50,
        limit: 50,
        direction: "at most",
        unit: "ms",
      },
      {
        name: `8b. tick cost per project flat from 100 to ${largest.toLocaleString("en")}`,
        formula: `most a size costs per project ÷ what a smaller one did (${describe})`,
        measured: growth,
        limit: 1.5,
        direction: "at most",
        unit: "×",
      },
    ];
    return { lines, goals, notes };
  } finally {
    host.close();
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
}
