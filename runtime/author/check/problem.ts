/**
 * A problem `deno task check` found, and the one way it is printed: check and
 * install say the same words.
 *
 * @module
 */
import { printable } from "../../internal/printable.ts";

/** One problem check found. Paths are relative to the package folder. */
export interface CheckProblem {
  /** Which rule it breaks, such as `free-global` or `schedule-handler` (docs/check.md). */
  rule: string;
  /** The file it is in, such as `manifest.json` or `service/index.js`. */
  file: string;
  /** Line, from 1, when the problem has a place in the file. */
  line?: number;
  /** Column, from 1. */
  column?: number;
  /** What is wrong. */
  message: string;
  /** What to do about it. */
  hint: string;
}

/**
 * One problem as the terminal shows it: `file:line:col  message` and an
 * indented hint. Install uses the same words when it refuses a package.
 *
 * @param problem One problem check found.
 * @example
 * ```ts
 * formatProblem({ rule: "free-global", file: "service/index.js", line: 4, column: 7,
 *   message: "uses setTimeout, which the isolate does not have", hint: "…" });
 * // "service/index.js:4:7  uses setTimeout, which the isolate does not have\n  hint: …"
 * ```
 */
export function formatProblem(problem: CheckProblem): string {
  const place = problem.line === undefined
    ? problem.file
    : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
  // A message may quote the package's own text: each part stays on its line.
  return `${printable(place)}  ${printable(problem.message)}\n  hint: ${printable(problem.hint)}`;
}
