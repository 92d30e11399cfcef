/**
 * `deno task bench`: how long the commands a person types take to start,
 * every line of the call path and the clock, with the installation KV on
 * disk, and each goal as a ratio measured in this run with PASS or FAIL, in
 * the order of their numbers, then the Mail applet reading a fixture Maildir.
 * `--strict` makes a FAIL the exit status; `--quick` (or `SYNC_BENCH_MESSAGES`)
 * makes that Maildir smaller. See `docs/benchmarks.md`.
 *
 * @module
 */
import { benchMessages, measureApplets, printApplets } from "./applet_goals.ts";
import { measureCallPath } from "./call_path_goals.ts";
import { measureCrossings } from "./crossing_counts.ts";
import { byGoalNumber, goalMet, printGoals, printLines } from "./goal_report.ts";
import { measureStartup, printStartup } from "./startup_goals.ts";
import { measureTick } from "./tick_goals.ts";

/** What the run is doing, on stderr, so a long silence is never a question. */
const progress = (line: string) => console.error(`  … ${line}`);

/** The machine's load average over the last minute, as the kernel says it. */
function loadAverage(): string {
  try {
    return `${Deno.loadavg()[0].toFixed(2)} (${navigator.hardwareConcurrency} cores)`;
  } catch {
    return "unknown";
  }
}

const started = performance.now();
// Read first, so a bad count is said before the run, not minutes into it.
const messages = benchMessages(Deno.args);
console.log(`Load average as the run began: ${loadAverage()}`);
const startup = await measureStartup({ progress });
printStartup(startup.rows);
progress("timing the call path: every line in rounds, after warming each up");
const callPath = await measureCallPath();
printLines("Call path (p50 over rounds; KV on disk unless said)", callPath.lines);
const crossings = await measureCrossings();
console.log("\nCrossings of one host call (counted; installation KV on disk)\n");
for (const line of crossings.lines) console.log(`  ${line}`);
const tick = await measureTick({ progress });
printLines("Clock tick (installation KV on disk)", tick.lines);
for (const note of tick.notes) console.log(`  note: ${note}`);
const applets = await measureApplets({ messages, progress });
printApplets(applets);
const goals = [
  ...startup.goals,
  ...crossings.goals,
  ...callPath.goals,
  ...tick.goals,
  ...applets.goals,
].sort(byGoalNumber);
printGoals(goals);
console.log(`\n  (the run took ${((performance.now() - started) / 1000).toFixed(0)} s)`);
console.log(`Load average as the run ended: ${loadAverage()}`);
if (Deno.args.includes("--strict") && !goals.every(goalMet)) Deno.exit(1);
