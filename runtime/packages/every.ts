/**
 * Schedule intervals: the `every` field of a manifest's schedule rows, such as
 * `15m`, `1h` or `1d`. The clock runs on intervals, never cron (no timezone,
 * no missed-while-asleep question, no syntax to document). This file is the
 * one source of truth for what an interval may be: the manifest schema, the
 * clock and the Extensions page all go through `parseEvery`.
 *
 * @module
 */

import { InvalidInputError } from "../errors.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The shape of an interval: a whole number followed by `m`, `h` or `d`. */
export const EVERY_PATTERN: RegExp = /^(\d+)(m|h|d)$/;

/** The shortest interval, in milliseconds: the clock looks once a minute. */
export const MIN_EVERY_MS: number = MINUTE_MS;

/** The longest interval, in milliseconds (30 days). */
export const MAX_EVERY_MS: number = 30 * DAY_MS;

const UNIT_MS: Record<string, number> = { m: MINUTE_MS, h: HOUR_MS, d: DAY_MS };

const EXAMPLES = "like 15m, 1h or 1d";

/**
 * Reads an interval such as `15m`, `2h` or `1d` into milliseconds.
 *
 * @param every The interval as written in a manifest.
 * @returns The interval in milliseconds, between 1 minute and 30 days.
 * @throws {InvalidInputError} When `every` is not an interval, is cron syntax,
 *   is zero, is shorter than 1m or longer than 30d. The message says what was
 *   found and what is expected.
 * @example
 * ```ts
 * parseEvery("15m"); // 900000
 * parseEvery("30s"); // throws: "30s" is shorter than the 1m minimum
 * ```
 */
export function parseEvery(every: string): number {
  if (typeof every !== "string") {
    throw new InvalidInputError(`expected an interval ${EXAMPLES}, got ${typeof every}`);
  }
  const shown = JSON.stringify(every);
  if (looksLikeCron(every)) {
    throw new InvalidInputError(
      `${shown} looks like cron: cron syntax is not supported; use an interval ${EXAMPLES}`,
    );
  }
  // Seconds are recognised only to say why they are refused: the clock looks
  // once a minute, so anything shorter could never be honoured.
  if (/^\d+s$/.test(every)) {
    throw new InvalidInputError(`${shown} is shorter than the 1m minimum`);
  }
  const match = EVERY_PATTERN.exec(every);
  if (!match) {
    const unit = /^\d+([a-zA-Z]+)$/.exec(every);
    if (unit) {
      throw new InvalidInputError(
        `unknown unit "${unit[1]}" in ${shown}; expected m (minutes), h (hours) or d (days), ` +
          EXAMPLES,
      );
    }
    throw new InvalidInputError(
      `expected an interval ${EXAMPLES} (a whole number, then m, h or d), got ${shown}`,
    );
  }
  const count = Number(match[1]);
  if (count === 0) {
    throw new InvalidInputError(`${shown} is zero; the shortest interval is 1m`);
  }
  const ms = count * UNIT_MS[match[2]];
  if (ms > MAX_EVERY_MS) {
    throw new InvalidInputError(`${shown} is longer than the 30d maximum`);
  }
  return ms;
}

/**
 * Says an interval the way the host shows it to a person, in the largest
 * whole unit: `60m` is "every hour", `24h` is "every day", `90m` stays
 * "every 90 minutes".
 *
 * @param every The interval as written in a manifest.
 * @returns Wording such as "every minute", "every 15 minutes", "every 2 hours".
 * @throws {InvalidInputError} When `every` is not a valid interval (see `parseEvery`).
 * @example
 * ```ts
 * describeEvery("15m"); // "every 15 minutes"
 * describeEvery("24h"); // "every day"
 * ```
 */
export function describeEvery(every: string): string {
  const ms = parseEvery(every);
  if (ms % DAY_MS === 0) return wording(ms / DAY_MS, "day");
  if (ms % HOUR_MS === 0) return wording(ms / HOUR_MS, "hour");
  return wording(ms / MINUTE_MS, "minute");
}

function wording(count: number, unit: string): string {
  return count === 1 ? `every ${unit}` : `every ${count} ${unit}s`;
}

/**
 * Cron is refused with its own message, because someone who writes
 * `*\/5 * * * *` needs to hear that the syntax is the problem, not the unit.
 */
function looksLikeCron(every: string): boolean {
  const text = every.trim();
  if (text.startsWith("@")) return true; // @hourly, @daily, …
  if (text.includes("*")) return true;
  return text.split(/\s+/).length >= 5;
}
