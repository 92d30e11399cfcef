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

/**
 * Parsing and evaluating a service module in a fresh context, per KiB of
 * source, in ms: measured on a shared 2-core machine (19 KiB took 1.8 ms,
 * 97 KiB 7.6 ms, 195 KiB 16 ms of plain functions).
 */
export const PARSE_MS_PER_KIB = 0.08;

/** Service modules larger than this (bytes) are told what they cost each call. */
export const LARGE_SERVICE_BYTES = 32 * 1024;

/**
 * A note for a built service module large enough that parsing it at every
 * call costs more than the rest of the call; null for a screen's bundle (a
 * browser loads it once) or a small module.
 *
 * @param output What the build wrote.
 * @returns One line of advice, or null.
 */
export function serviceParseNote(output: BuildOutput): string | null {
  if (output.source !== "src/service.ts" || output.bytes <= LARGE_SERVICE_BYTES) return null;
  const ms = Math.round(output.bytes / 1024 * PARSE_MS_PER_KIB);
  return `Every handler call parses ${output.output} afresh, in a fresh isolate: at this size ` +
    `about ${ms} ms a call on a 2-core machine. Bundle only what the handlers use.`;
}
