/**
 * Prints the benchmark's lines and its goals: each goal a ratio of lines
 * measured in the same run, against its limit, with PASS or FAIL.
 *
 * @module
 */
import type { Timing } from "./sample.ts";

/** One measured line, as printed in the table. */
export interface ReportLine {
  /** What was measured. */
  name: string;
  /** Its timing, in ms. */
  timing: Timing;
}

/** One goal: a measured ratio and the limit it must stay within. */
export interface Goal {
  /** The goal's number in `docs/benchmarks.md` and a short name, e.g. `6. pool call`. */
  name: string;
  /** How the ratio is formed, in words. */
  formula: string;
  /** The measured ratio (or, for a time goal, the measured ms). */
  measured: number;
  /** The limit the measured value is held to; absent for a value that is only printed. */
  limit?: number;
  /** Whether the measured value must be at most or at least the limit. */
  direction: "at most" | "at least";
  /**
   * The unit both numbers are printed in; a count is printed as a plain
   * number, a rate (`/s`) as a whole number a second.
   */
  unit: "×" | "ms" | "count" | "/s";
}

/** Whether `goal` is met. */
export function goalMet(goal: Goal): boolean {
  if (goal.limit === undefined) return true;
  return goal.direction === "at most" ? goal.measured <= goal.limit : goal.measured >= goal.limit;
}

/**
 * Orders goals by the number and letter their names start with (`1a`, `1b`,
 * `2`, `3a`, …, `8b`); goals of one number and letter keep their order.
 */
export function byGoalNumber(a: Goal, b: Goal): number {
  const key = (goal: Goal): [number, string] => {
    const match = /^(\d+)([a-z]?)/.exec(goal.name);
    return match ? [Number(match[1]), match[2]] : [Infinity, ""];
  };
  const [numberA, letterA] = key(a);
  const [numberB, letterB] = key(b);
  return numberA - numberB || (letterA < letterB ? -1 : letterA > letterB ? 1 : 0);
}

/** Formats a time in ms as µs below 1 ms. */
export function formatMs(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

function formatValue(value: number, unit: Goal["unit"]): string {
  if (Number.isNaN(value)) return "not measured";
  if (unit === "count") return String(value);
  if (unit === "/s") return `${value.toFixed(0)}/s`;
  return unit === "ms" ? formatMs(value) : `${value.toFixed(2)}×`;
}

/** Prints the table of lines: median and mean of each. */
export function printLines(title: string, lines: ReportLine[]): void {
  const width = Math.max(...lines.map((line) => line.name.length), 4);
  console.log(`\n${title}\n`);
  console.log(`  ${"line".padEnd(width)}  ${"p50".padStart(10)}  ${"mean".padStart(10)}  samples`);
  for (const { name, timing } of lines) {
    console.log(
      `  ${name.padEnd(width)}  ${formatMs(timing.p50).padStart(10)}  ${
        formatMs(timing.mean).padStart(10)
      }  ${String(timing.samples).padStart(7)}`,
    );
  }
}

/** Prints every goal with its measured value, its limit, and PASS or FAIL. */
export function printGoals(goals: Goal[]): void {
  console.log("\nGoals (ratios of lines measured in this run)\n");
  for (const goal of goals) {
    const sign = goal.direction === "at most" ? "≤" : "≥";
    const verdict = goal.limit === undefined ? "INFO" : goalMet(goal) ? "PASS" : "FAIL";
    const limit = goal.limit === undefined ? "" : ` ${sign} ${formatValue(goal.limit, goal.unit)}`;
    console.log(
      `  ${verdict}  ${goal.name}: ${formatValue(goal.measured, goal.unit)}${limit}\n` +
        `        ${goal.formula}`,
    );
  }
  const held = goals.filter((goal) => goal.limit !== undefined);
  console.log(`\n  ${held.filter(goalMet).length} of ${held.length} goals PASS`);
}
