/**
 * What a built service module costs every call before its handler runs. Each
 * call runs in a fresh QuickJS context, so that nothing of one call reaches
 * the next, and QuickJS here cannot keep a module's compiled form from one
 * context to another: the module is parsed and evaluated at every call. Its
 * size is what an author controls.
 *
 * @module
 */
import type { BuildOutput } from "./build.ts";
import type { CheckProblem } from "./check/problem.ts";

/**
 * Parsing and evaluating a service module in a fresh context, per KiB of
 * source, in ms, for a module that is mostly code: measured through the host
 * on a shared 2-core machine, above a 1 KiB module's call (19 KiB took 1.8
 * ms, 97 KiB 7.6 ms, 195 KiB 16 ms of plain functions; again, 100 KiB 5–7 ms
 * and 1 MiB 110 ms). What a KiB costs depends on what it holds: past a MiB
 * code costs more (2.8 MiB of functions took 560 ms), an array literal of
 * data about 0.06 ms and a string literal about 0.01 ms (2.8 MiB: 175 and
 * 33 ms), so a bundle carrying much text or data costs less than the figure.
 */
export const PARSE_MS_PER_KIB = 0.08;

/** Service modules larger than this (bytes) are told what they cost each call. */
export const LARGE_SERVICE_BYTES = 32 * 1024;

/** The estimated ms a call for a service module over the size; null for a screen or a small one. */
function parseMs(output: BuildOutput): number | null {
  if (output.source !== "src/service.ts" || output.bytes <= LARGE_SERVICE_BYTES) return null;
  return Math.round(output.bytes / 1024 * PARSE_MS_PER_KIB);
}

/** The estimate as a phrase, and what it holds for. */
function estimate(ms: number): string {
  return `about ${ms} ms a call on a 2-core machine if it is mostly code (strings and data ` +
    `parse faster)`;
}

/**
 * A note for a built service module large enough that parsing it at every
 * call costs more than the rest of the call; null for a screen's bundle (a
 * browser loads it once) or a small module.
 *
 * @param output What the build wrote.
 * @returns One line of advice, or null.
 */
export function serviceParseNote(output: BuildOutput): string | null {
  const ms = parseMs(output);
  if (ms === null) return null;
  return `Every handler call parses ${output.output} afresh, in a fresh isolate: at this size ` +
    `${estimate(ms)}. Bundle only what the handlers use.`;
}

/**
 * The same note as a warning `check` reports beside its problems: it does
 * not fail the check.
 *
 * @param output What the build wrote.
 * @returns The warning, at the built file, or null.
 */
export function serviceParseWarning(output: BuildOutput): CheckProblem | null {
  const ms = parseMs(output);
  if (ms === null) return null;
  return {
    rule: "large-service",
    file: output.output,
    message: `is ${(output.bytes / 1024).toFixed(1)} KiB, and every handler call parses it ` +
      `afresh, in a fresh isolate: ${estimate(ms)}`,
    hint: "bundle only what the handlers use: import the functions a handler calls rather " +
      "than a whole library, and keep large data out of the module; a warning, not a failure",
  };
}
