/**
 * Goals 9a, 9b and 9c: the Mail applet (`extensions/mail`, installed from its
 * folder into a real Host, installation KV on disk) reads a fixture Maildir
 * (`tests/internal/fixture_sources/`: 10,000 messages by default, a third of
 * them HTML newsletters of 31–98 KB) through a real {@linkcode TaskRunner},
 * its `sync` task run on demand until the read is whole; then reads it again
 * with nothing changed; and a person's `GET /api/devices?project=…` through
 * the real app is timed while the first read runs and while nothing does.
 *
 * The message count is `SYNC_BENCH_MESSAGES` (at least 10), or 1,000 with
 * `--quick`. Run alone, it prints its lines and goals:
 *
 * ```sh
 * deno run --unstable-kv --unstable-worker-options --allow-read --allow-write --allow-env --allow-run \
 *   --allow-sys=loadavg tests/bench/applet_goals.ts [--quick]
 * ```
 *
 * See `docs/benchmarks.md`.
 *
 * @module
 */
import { join } from "node:path";
import { TaskRunner, type TaskRunnerHost } from "../../runtime/applets/mod.ts";
import type { Coverage, TaskAttempt } from "../../runtime/applets/mod.ts";
import { Host } from "../../runtime/host/host.ts";
import { Foreground } from "../../runtime/host/foreground.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { ParserPool } from "../../runtime/parsers/mod.ts";
import { openInstallation } from "../../runtime/projects/home.ts";
import { createApp } from "../../runtime/web/app.ts";
import { writeMaildir } from "../internal/fixture_sources/maildir.ts";
import { formatMs, type Goal, printGoals, printLines, type ReportLine } from "./goal_report.ts";
import { timingOf } from "./sample.ts";
import { type ThreadStat, threadStats, ticksPerSecond } from "./thread_cpu.ts";

const MAIL = new URL("../../extensions/mail/", import.meta.url).pathname;
const TOKEN = "b".repeat(48);
const PORT = 4399;
const ORIGIN = `http://127.0.0.1:${PORT}`;
/**
 * A person's pace, and quick: a request, then this pause, then the next. The
 * requests' own work on the main thread stays a few percent of the read's.
 */
const PAUSE_MS = 100;
/** Attempts a first read may take before the bench stops it. */
const MAX_ATTEMPTS = 8;

/** A parser pool that counts the files it was handed: bodies parsed. */
class CountingParserPool extends ParserPool {
  /** Files handed to `parseMail` so far. */
  files = 0;
  /** Wall time some parse was running, in ms. */
  busyMs = 0;
  #running = 0;
  #since = 0;

  override async parseMail(files: Uint8Array[]): ReturnType<ParserPool["parseMail"]> {
    this.files += files.length;
    if (this.#running++ === 0) this.#since = performance.now();
    try {
      return await super.parseMail(files);
    } finally {
      if (--this.#running === 0) this.busyMs += performance.now() - this.#since;
    }
  }
}

/** Options for {@linkcode measureApplets}. */
export interface AppletOptions {
  /** Messages in the fixture Maildir; 10,000 by default. */
  messages?: number;
  /** Told what the run is doing before each long step. */
  progress?: (line: string) => void;
  /**
   * The longest the first read runs before the device is paused and the read
   * reported incomplete, in s; 300 by default.
   */
  firstReadSeconds?: number;
}

/** What {@linkcode measureApplets} measured. */
export interface AppletResult {
  lines: ReportLine[];
  goals: Goal[];
  /** What the reads did: attempts, outcomes, coverage, memory. */
  notes: string[];
}

/**
 * The message count the run asks for: `SYNC_BENCH_MESSAGES`, else 1,000 with
 * `--quick`, else 10,000.
 *
 * @param args The command's arguments.
 */
export function benchMessages(args: string[]): number {
  const env = Deno.env.get("SYNC_BENCH_MESSAGES");
  if (env !== undefined && env !== "") {
    const count = Number(env);
    if (!Number.isInteger(count) || count < 10) {
      throw new RangeError(
        `SYNC_BENCH_MESSAGES is ${JSON.stringify(env)}: give a whole number of at least 10`,
      );
    }
    return count;
  }
  return args.includes("--quick") ? 1_000 : 10_000;
}

/** The p95 of samples in ms. */
function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
}

/**
 * CPU the threads of the process use while a read runs, by group: the main
 * thread, the isolates' workers, the parsers' workers, Deno KV's threads and
 * the rest. Read every 2 s, so a thread that ends (a worker replaced after a
 * step ran past its time) keeps what it used until then.
 */
class ThreadCpu {
  #hz: number;
  #parsers: Set<number>;
  #start = new Map<number, number>();
  #last = new Map<number, ThreadStat>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #reading: Promise<void> = Promise.resolve();

  /** Its clock ticks a second, and the parsers' workers (the Deno Workers not among them are isolates'). */
  constructor(hz: number, parsers: Set<number>) {
    this.#hz = hz;
    this.#parsers = parsers;
  }

  /** Takes the first reading and reads on every 2 s. */
  async start(): Promise<void> {
    for (const stat of await threadStats()) this.#start.set(stat.tid, stat.ticks);
    this.#timer = setInterval(() => {
      this.#reading = this.#read();
    }, 2_000);
  }

  async #read(): Promise<void> {
    for (const stat of await threadStats()) this.#last.set(stat.tid, stat);
  }

  /** Takes the last reading and answers the CPU by group, in s, most first. */
  async stop(): Promise<string> {
    clearInterval(this.#timer);
    await this.#reading;
    await this.#read();
    const groups = new Map<string, number>();
    for (const stat of this.#last.values()) {
      const used = stat.ticks - (this.#start.get(stat.tid) ?? 0);
      const group = stat.tid === Deno.pid
        ? "main thread"
        : this.#parsers.has(stat.tid)
        ? "parser workers"
        : /^worker-\d+$/.test(stat.comm)
        ? "isolate workers (QuickJS)"
        : /^sw-\d+$/.test(stat.comm)
        ? "Deno KV threads"
        : "other threads (V8 GC, I/O)";
      groups.set(group, (groups.get(group) ?? 0) + used);
    }
    return [...groups].filter(([, ticks]) => ticks > 0).sort((a, b) => b[1] - a[1])
      .map(([group, ticks]) => `${group} ${(ticks / this.#hz).toFixed(1)}`).join(", ");
  }
}

/** Writes the fixture, installs Mail, reads it twice, and times a person's request beside it. */
export async function measureApplets(options: AppletOptions = {}): Promise<AppletResult> {
  const messages = options.messages ?? 10_000;
  const progress = options.progress ?? (() => {});
  const budgetMs = (options.firstReadSeconds ?? 300) * 1000;
  const root = await Deno.makeTempDir({ prefix: "sync-applet-bench-" });
  const cleanup: (() => unknown)[] = [];
  try {
    const maildir = join(root, "maildir");
    progress(`writing a fixture Maildir of ${messages.toLocaleString("en")} messages`);
    const writing = performance.now();
    const truth = await writeMaildir(maildir, {
      messages,
      seed: 1,
      onProgress: (written, total) => {
        if (written % 2_000 === 0 && written < total) {
          progress(`  ${written.toLocaleString("en")} of ${total.toLocaleString("en")} written`);
        }
      },
    });
    const bytes = truth.messages.reduce((sum, message) => sum + message.size, 0);
    const newsletters = truth.messages.filter((message) => message.kind === "newsletter");
    const written = (performance.now() - writing) / 1000;

    progress("installing extensions/mail into an installation on disk, and connecting it");
    const home = join(root, "home");
    const kv = await openInstallation(home);
    cleanup.push(() => kv.close());
    // The serve's own: its parses give way to a person's requests, as its handlers do.
    const foreground = new Foreground();
    const parsers = new CountingParserPool({ yieldTo: foreground });
    const logs: string[] = [];
    const host = new Host({
      kv,
      home,
      limits: DEFAULT_LIMITS,
      parsers,
      foreground,
      log: (line) => logs.push(line),
    });
    cleanup.push(() => host.close());
    const project = join(root, "project");
    await Deno.mkdir(project);
    const projectPath = await Deno.realPath(project);
    await installPackage(host, MAIL, projectPath, { approve: true });
    // Both pools' workers start now: the Deno Workers that start with the parsers' are
    // theirs, and any started later replaced an isolate's that ran past its time.
    const hz = await ticksPerSecond();
    await host.pool.warm();
    const workers = async () =>
      new Set(
        (await threadStats()).filter((stat) => /^worker-\d+$/.test(stat.comm)).map((stat) =>
          stat.tid
        ),
      );
    const beforeParsers = await workers();
    const warm = new TextEncoder().encode("Subject: warm\r\n\r\nup");
    await parsers.parseMail(Array(parsers.size).fill(warm));
    const parserThreads = new Set([...await workers()].filter((tid) => !beforeParsers.has(tid)));
    const parsedBefore = parsers.files;
    // The runner calls the host itself; only the time of each step is taken on the way.
    const steps: number[] = [];
    const timed: TaskRunnerHost = {
      kv: host.kv,
      now: host.now,
      events: host.events,
      projectMemory: (path) => host.projectMemory(path),
      callHandler: async (...args) => {
        const started = performance.now();
        try {
          return await host.callHandler(...args);
        } finally {
          steps.push(performance.now() - started);
          if (steps.length % 25 === 0) progress(`  ${steps.length} steps`);
        }
      },
    };
    const runner = new TaskRunner(timed, { log: (line) => logs.push(line) });
    cleanup.push(() => runner.stop());
    await runner.connect(projectPath, "mail", { kind: "folder", folder: maildir });
    const app = createApp(host, { token: TOKEN, port: PORT, tasks: runner });
    const url = `${ORIGIN}/api/devices?project=${encodeURIComponent(projectPath)}`;
    const headers = { cookie: `sync_token_${PORT}=${TOKEN}` };
    const request = async (): Promise<number> => {
      const started = performance.now();
      const response = await app.request(url, { headers });
      if (response.status !== 200) {
        throw new Error(`GET /api/devices answered ${response.status}: ${await response.text()}`);
      }
      await response.arrayBuffer();
      return performance.now() - started;
    };
    /** Times requests at a person's pace until `until` says stop; returns ms each. */
    const sampleRequests = async (until: () => boolean): Promise<number[]> => {
      const taken: number[] = [];
      while (!until()) {
        taken.push(await request());
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
      return taken;
    };

    progress("timing a person's GET /api/devices with nothing running");
    for (let i = 0; i < 20; i++) await request();
    let idleCount = 0;
    const idle = await sampleRequests(() => idleCount++ >= 100);

    progress(
      `first read: the sync task on demand until the read is whole ` +
        `(as many messages a step as one commit holds)`,
    );
    const rssBefore = Deno.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, Deno.memoryUsage().rss);
    }, 20);
    cleanup.push(() => clearInterval(sampler));
    let reading = true;
    const busySampling = sampleRequests(() => !reading);
    // Awaited below; a request that failed meanwhile must not end the process before cleanup.
    busySampling.catch(() => {});
    const attempts: TaskAttempt[] = [];
    const threadCpu = new ThreadCpu(hz, parserThreads);
    await threadCpu.start();
    cleanup.push(() => threadCpu.stop());
    const firstStarted = performance.now();
    let coverage: Coverage | undefined;
    let coveredAt = 0;
    // Past its time the read is paused, as a person would: the attempt going is called
    // off (its last step keeps nothing), what the steps before committed stays.
    let overBudget = false;
    const budget = setTimeout(() => {
      overBudget = true;
      progress("  the first read's time is up: pausing the device");
      runner.pause(projectPath, "mail").catch(() => {});
    }, budgetMs);
    cleanup.push(() => clearTimeout(budget));
    try {
      // A person reads on until the read is whole: a failed attempt (the step limit)
      // is reviewed and run again, a transient one (a step past its time) run again.
      while (attempts.length < MAX_ATTEMPTS && !overBudget) {
        const attempt = await runner.runTask(projectPath, "mail", "sync");
        attempts.push(attempt);
        if (attempt.coverage) {
          coverage = attempt.coverage;
          coveredAt = performance.now() - firstStarted;
        }
        progress(
          `  attempt ${attempts.length}: ${attempt.outcome}, ${attempt.receipts.length} steps` +
            (coverage ? `, read ${coverage.read} of ${coverage.of}` : "") +
            ` (${((performance.now() - firstStarted) / 1000).toFixed(0)} s so far)` +
            (attempt.error ? `: ${attempt.error}` : ""),
        );
        if (attempt.outcome === "ok" || overBudget) break;
        if (attempt.outcome !== "failed" && attempt.outcome !== "transient") {
          throw new Error(
            `the first read's attempt ${attempts.length} ended ${attempt.outcome}: ` +
              `${attempt.error ?? "no reason given"}`,
          );
        }
        if (attempt.outcome === "failed") await runner.review(projectPath, "mail");
      }
    } finally {
      reading = false;
      clearTimeout(budget);
    }
    const firstMs = performance.now() - firstStarted;
    const cpu = await threadCpu.stop();
    const firstSteps = steps.splice(0);
    const parseBusy = parsers.busyMs;
    const busy = await busySampling;
    clearInterval(sampler);
    const parsedFirst = parsers.files - parsedBefore;
    const whole = attempts.at(-1)?.outcome === "ok";
    if (!coverage) throw new Error("the first read's attempts said nothing of what they read");
    const incomplete = whole
      ? ""
      : ` (incomplete: read ${coverage.read} of ${coverage.of} in ${attempts.length} attempts, ${
        (firstMs / 1000).toFixed(0)
      } s)`;

    // A second read is a read of nothing changed only after a whole first read.
    let second: { ms: number; parsed: number; steps: number } | null = null;
    if (whole) {
      progress("second read, nothing changed");
      const filesBefore = parsers.files;
      const started = performance.now();
      const attempt = await runner.runTask(projectPath, "mail", "sync");
      const ms = performance.now() - started;
      if (attempt.outcome !== "ok") {
        throw new Error(`the second read ended ${attempt.outcome}: ${attempt.error ?? ""}`);
      }
      second = { ms, parsed: parsers.files - filesBefore, steps: attempt.receipts.length };
    }

    const handled = coverage.read + coverage.failed;
    // Over the time until what was read was last said: a called-off attempt says nothing.
    const perSecond = handled / ((whole ? firstMs : coveredAt) / 1000);
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
    const lines: ReportLine[] = [
      { name: "GET /api/devices, nothing running", timing: timingOf(idle) },
      { name: "GET /api/devices, during the first read", timing: timingOf(busy) },
    ];
    const notes = [
      `fixture: ${truth.messages.length.toLocaleString("en")} messages, ${
        (bytes / 1e6).toFixed(0)
      } MB, ${newsletters.length.toLocaleString("en")} HTML newsletters of ${
        (Math.min(...newsletters.map((m) => m.size)) / 1000).toFixed(0)
      }–${(Math.max(...newsletters.map((m) => m.size)) / 1000).toFixed(0)} KB, written in ${
        written.toFixed(1)
      } s`,
      `first read: ${attempts.length} attempt${attempts.length === 1 ? "" : "s"} (${
        attempts.map((a) => `${a.outcome}, ${a.receipts.length} steps`).join("; ")
      }), ${(firstMs / 1000).toFixed(1)} s, read ${coverage.read} of ${coverage.of}, ` +
      `${coverage.failed} could not be parsed; ${parsedFirst} bodies parsed`,
      `first read: ${perSecond.toFixed(0)} messages/s; peak RSS ${mb(rssPeak)} (${
        mb(rssBefore)
      } before)`,
      `first read, where the time went: steps ${
        (firstSteps.reduce((a, b) => a + b, 0) / 1000).toFixed(1)
      } s (${firstSteps.length}, p50 ${formatMs(timingOf(firstSteps).p50)}, longest ${
        formatMs(Math.max(...firstSteps))
      }), some parse running ${(parseBusy / 1000).toFixed(1)} s; CPU s: ${cpu}`,
      second
        ? `second read: ${formatMs(second.ms)}, ${second.steps} step${
          second.steps === 1 ? "" : "s"
        }, ${second.parsed} bodies parsed`
        : "second read: not made, the first did not end",
      `GET /api/devices p95: ${formatMs(p95(idle))} idle (${idle.length} samples), ${
        formatMs(p95(busy))
      } during the first read (${busy.length} samples), one every ${PAUSE_MS} ms`,
    ];
    const goals: Goal[] = [
      {
        name: `9a. Mail's first read of ${messages.toLocaleString("en")} messages${incomplete}`,
        formula: `messages ÷ s over its attempts, peak RSS ${mb(rssPeak)} (${
          mb(rssBefore)
        } before)`,
        measured: perSecond,
        limit: 200,
        direction: "at least",
        unit: "/s",
      },
      {
        name: "9b. Mail's second read, nothing changed",
        formula: second
          ? `its time (${formatMs(second.ms)}) ÷ the first read's (${
            (firstMs / 1000).toFixed(1)
          } s); ${second.parsed} message bodies parsed`
          : "not measured: the first read did not end",
        measured: second ? second.ms / firstMs : NaN,
        limit: 0.05,
        direction: "at most",
        unit: "×",
      },
      {
        name: "9b. bodies parsed by the second read, but for those that failed",
        formula: second
          ? `files handed to the parser pool (counted: ${second.parsed}), less the ${coverage.failed} ` +
            `the first read could not parse, which a person's read tries again`
          : "not measured: the first read did not end",
        measured: second ? second.parsed - coverage.failed : NaN,
        limit: 0,
        direction: "at most",
        unit: "count",
      },
      {
        name: "9c. GET /api/devices during the first read",
        formula: `p95 (${formatMs(p95(busy))}) ÷ p95 with nothing running (${formatMs(p95(idle))})`,
        measured: p95(busy) / p95(idle),
        limit: 2,
        direction: "at most",
        unit: "×",
      },
    ];
    return { lines, goals, notes };
  } finally {
    for (const step of cleanup.reverse()) {
      try {
        await step();
      } catch { /* the rest is still undone */ }
    }
    await Deno.remove(root, { recursive: true });
  }
}

/** Prints the part's lines and notes. */
export function printApplets(result: AppletResult): void {
  printLines("Applets: Mail reading a fixture Maildir (installation KV on disk)", result.lines);
  for (const note of result.notes) console.log(`  note: ${note}`);
}

if (import.meta.main) {
  console.log(`Load average as the run began: ${Deno.loadavg()[0].toFixed(2)}`);
  const result = await measureApplets({
    messages: benchMessages(Deno.args),
    progress: (line) => console.error(`  … ${line}`),
  });
  printApplets(result);
  printGoals(result.goals);
  console.log(`Load average as the run ended: ${Deno.loadavg()[0].toFixed(2)}`);
}
