/**
 * One problem `deno task check` reports. In a file of its own so that the
 * check's parts can return problems without importing the check that calls
 * them.
 *
 * @module
 */

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
