/**
 * Goals 1a–1d and 2: how long the commands a person types take to start and
 * answer, and the most memory they hold, against `deno run` of an empty
 * module measured in the same run with the same flags. See
 * `docs/benchmarks.md`.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT, runSync } from "../internal/cli.ts";
import { initializeRequest } from "../internal/mcp_initialize.ts";
import { ServeProcess } from "../internal/serve_process.ts";
import type { Goal } from "./goal_report.ts";
import { canMeasurePeak, type MeasuredRun, measureRun, TIME_PATH } from "./measured_run.ts";
import { timingOf } from "./sample.ts";

/** One command's medians, and its ratios to the floor's. */
export interface StartupRow {
  /** The command, as printed. */
  name: string;
  /** Median wall time, in ms. */
  ms: number;
  /** Median peak memory (max RSS), in MB. */
  peakMb: number;
  /** How many timed runs. */
  runs: number;
}

/** What {@linkcode measureStartup} measured. */
export interface StartupResult {
  /** The floor first, then each command. */
  rows: StartupRow[];
  goals: Goal[];
}

/** Options for {@linkcode measureStartup}. */
export interface StartupOptions {
  /** Timed runs of each command, after one untimed run that fills Deno's cache. */
  runs?: number;
  /** Told what the run is doing before each long step. */
  progress?: (line: string) => void;
}

/**
 * The `deno` arguments of a task of `deno.json` (`deno run <flags> main.ts …`),
 * so that the bench runs what the task runs.
 */
export async function taskRunArgs(task: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", REPO_ROOT)));
  const words = String(config.tasks?.[task] ?? "").trim().split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run" || words.length < 3) {
    throw new Error(`the task ${task} is not "deno run …": ${config.tasks?.[task]}`);
  }
  return words.slice(1);
}

/** The flags of `deno run <flags> <module> …`: what comes before the module. */
function flagsOf(runArgs: readonly string[]): string[] {
  const module = runArgs.findIndex((word) => word.endsWith(".ts"));
  if (module < 0) throw new Error(`no module in deno ${runArgs.join(" ")}`);
  return runArgs.slice(1, module);
}

const HELLO = fileURLToPath(new URL("extensions/hello", REPO_ROOT));

/** Measures the floor and the commands in rounds, and forms goals 1a–1d and 2. */
export async function measureStartup(options: StartupOptions = {}): Promise<StartupResult> {
  const progress = options.progress ?? (() => {});
  const runs = options.runs ?? 7;
  if (!await canMeasurePeak()) {
    throw new Error(
      `${TIME_PATH} is not there to read peak memory: install it (Debian: apt-get install time)`,
    );
  }
  const root = await Deno.makeTempDir({ prefix: "sync-startup-bench-" });
  let serve: ServeProcess | undefined;
  try {
    const home = join(root, "home");
    const project = join(root, "project");
    await Deno.mkdir(project, { recursive: true });
    const empty = join(root, "empty.ts");
    await Deno.writeTextFile(empty, "");

    progress("installing hello into a project and starting a serve for it");
    const installed = await runSync(home, ["install", HELLO, "--project", project, "--approve"]);
    if (installed.code !== 0) throw new Error(`install of hello failed: ${installed.stderr}`);
    serve = new ServeProcess(home);
    await serve.url();

    const sync = await taskRunArgs("sync");
    const mcp = await taskRunArgs("mcp");
    const env = { SYNC_HOME: home, NO_COLOR: "1" };
    const run = (args: string[], ask?: Parameters<typeof measureRun>[2]["ask"]) => () =>
      measureRun(Deno.execPath(), args, { cwd: REPO_ROOT, env, ask });
    const greeted = (line: string) => line.includes("Hello, world!");
    const commands: { name: string; run: () => Promise<MeasuredRun> }[] = [
      // The module is empty; the flags and the configuration are the CLI's, so
      // that reading deno.json and its lock is in the floor as in every
      // command. Deno finds a configuration from the module's folder, not the
      // working one, so an empty module in a temporary folder is given it.
      {
        name: "floor: deno run of an empty module",
        run: run([
          "run",
          ...flagsOf(sync),
          "--config",
          fileURLToPath(new URL("deno.json", REPO_ROOT)),
          empty,
        ]),
      },
      { name: "sync help", run: run([...sync, "help"]) },
      {
        name: "sync call hello hello.greet, serve running",
        run: run([...sync, "call", "hello", "hello.greet", "--project", project]),
      },
      {
        name: "sync mcp --project p, serve running: first initialize answer",
        run: run([...mcp, "--project", project], {
          request: initializeRequest("bench"),
          answered: (line) => /"id"\s*:\s*1\b/.test(line) && line.includes('"result"'),
        }),
      },
    ];

    progress("one untimed run of each command (Deno's cache), then timed runs in rounds");
    for (const command of commands) await command.run();
    // Each command did what it is timed for, so that none is a fast wrong number.
    const usage = await runSync(home, ["help"]);
    if (usage.code !== 0 || !usage.stdout.includes("call <id> <handler>")) {
      throw new Error(`sync help printed no usage: ${usage.stdout}${usage.stderr}`);
    }
    const answer = await runSync(home, ["call", "hello", "hello.greet", "--project", project]);
    if (answer.code !== 0 || !greeted(answer.stdout)) {
      throw new Error(`sync call hello hello.greet answered: ${answer.stdout}${answer.stderr}`);
    }

    const samples = new Map<string, MeasuredRun[]>(commands.map((c) => [c.name, []]));
    for (let round = 0; round < runs; round++) {
      for (const command of commands) samples.get(command.name)!.push(await command.run());
    }

    const rows: StartupRow[] = commands.map(({ name }) => {
      const taken = samples.get(name)!;
      return {
        name,
        ms: timingOf(taken.map((s) => s.ms)).p50,
        peakMb: timingOf(taken.map((s) => s.peakMb)).p50,
        runs: taken.length,
      };
    });
    const [floor, help, call, bridge] = rows;
    const time = (row: StartupRow): string =>
      `${row.name} (${row.ms.toFixed(0)} ms) ÷ the floor (${floor.ms.toFixed(0)} ms), medians`;
    const memory = (row: StartupRow): string =>
      `${row.name}: max RSS (${row.peakMb.toFixed(0)} MB) ÷ the floor's (${
        floor.peakMb.toFixed(0)
      } MB), medians`;
    const goals: Goal[] = [
      {
        name: "1a. sync help, time",
        formula: time(help),
        measured: help.ms / floor.ms,
        limit: 3,
        direction: "at most",
        unit: "×",
      },
      {
        name: "1b. sync help, peak memory",
        formula: memory(help),
        measured: help.peakMb / floor.peakMb,
        limit: 1.5,
        direction: "at most",
        unit: "×",
      },
      {
        name: "1c. sync call hello hello.greet through a running serve, time",
        formula: time(call),
        measured: call.ms / floor.ms,
        limit: 3,
        direction: "at most",
        unit: "×",
      },
      {
        name: "1d. sync call through a running serve, peak memory",
        formula: memory(call),
        measured: call.peakMb / floor.peakMb,
        limit: 1.5,
        direction: "at most",
        unit: "×",
      },
      {
        name: "2. sync mcp with a serve running, spawn to the first initialize answer",
        formula: time(bridge),
        measured: bridge.ms / floor.ms,
        limit: 3,
        direction: "at most",
        unit: "×",
      },
    ];
    return { rows, goals };
  } finally {
    await serve?.stop("SIGTERM");
    await Deno.remove(root, { recursive: true });
  }
}

/** Prints the floor and each command: median time and peak memory, and each ÷ the floor's. */
export function printStartup(rows: readonly StartupRow[]): void {
  const [floor] = rows;
  const width = Math.max(...rows.map((row) => row.name.length));
  console.log("\nStartup (medians of runs under /usr/bin/time; floor in the same run)\n");
  console.log(
    `  ${"command".padEnd(width)}  ${"time".padStart(8)}  ${"÷ floor".padStart(7)}  ${
      "max RSS".padStart(8)
    }  ${"÷ floor".padStart(7)}  runs`,
  );
  for (const row of rows) {
    console.log(
      `  ${row.name.padEnd(width)}  ${`${row.ms.toFixed(0)} ms`.padStart(8)}  ${
        `${(row.ms / floor.ms).toFixed(2)}×`.padStart(7)
      }  ${`${row.peakMb.toFixed(0)} MB`.padStart(8)}  ${
        `${(row.peakMb / floor.peakMb).toFixed(2)}×`.padStart(7)
      }  ${String(row.runs).padStart(4)}`,
    );
  }
}
