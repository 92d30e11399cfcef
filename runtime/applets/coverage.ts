/**
 * Coverage: how much of the device a task step read, as the handler says it
 * in its answer. Unknown stays unknown: a total the handler could not know is
 * `of: null`, never 0, and is said as "read 12; total unknown".
 *
 * The shape is the extension API's `Coverage` (`runtime/extension_api/service.ts`).
 *
 * @module
 */
import type { Coverage } from "../extension_api/service.ts";

export type { Coverage };

/** Reasons kept with a coverage; more are dropped (the count in `failed` stays). */
const REASONS_KEPT = 20;
/** Characters of an item's name or a reason kept. */
const REASON_CHARS = 300;
/** What items may be called: a few words of letters. */
const ITEM_WORDS = /^\p{L}[\p{L} ]{0,39}$/u;

/**
 * The coverage a step's answer gives, checked; null when it gives none or
 * it is not one (a count that is not a whole number ≥ 0).
 *
 * @param answer The step's answer.
 */
export function coverageOf(answer: unknown): Coverage | null {
  if (typeof answer !== "object" || answer === null) return null;
  const given = (answer as { coverage?: unknown }).coverage;
  if (typeof given !== "object" || given === null) return null;
  const { read, of, failed, reasons, items } = given as Record<string, unknown>;
  const count = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  if (!count(read) || !(of === null || of === undefined || count(of))) return null;
  if (!(failed === undefined || count(failed))) return null;
  const coverage: Coverage = {
    read: read as number,
    of: (of ?? null) as number | null,
    failed: (failed ?? 0) as number,
  };
  if (Array.isArray(reasons)) {
    coverage.reasons = reasons.slice(0, REASONS_KEPT).flatMap((entry) => {
      const { item, reason } = (entry ?? {}) as Record<string, unknown>;
      if (typeof item !== "string" || typeof reason !== "string") return [];
      return [{ item: item.slice(0, REASON_CHARS), reason: reason.slice(0, REASON_CHARS) }];
    });
  }
  const named = itemsOf(items);
  if (named) coverage.items = named;
  return coverage;
}

/** What a coverage calls its items, when both words are a few words of letters. */
function itemsOf(value: unknown): Coverage["items"] | null {
  if (typeof value !== "object" || value === null) return null;
  const { one, other } = value as Record<string, unknown>;
  if (typeof one !== "string" || typeof other !== "string") return null;
  if (!ITEM_WORDS.test(one) || !ITEM_WORDS.test(other)) return null;
  return { one, other };
}

/**
 * What the coverage's items are called for `count` of them: its own words, or
 * "item" and "items".
 *
 * @param coverage The coverage.
 * @param count How many.
 */
export function itemWord(coverage: Coverage, count: number): string {
  const words = coverage.items ?? { one: "item", other: "items" };
  return count === 1 ? words.one : words.other;
}

/**
 * A coverage in words: "read 1,204 of 1,210 messages; 6 could not be parsed",
 * or "read 12 messages; total unknown" when the total is not known.
 *
 * @param coverage The coverage.
 */
export function describeCoverage(coverage: Coverage): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const read = coverage.of === null
    ? `read ${n(coverage.read)} ${itemWord(coverage, coverage.read)}; total unknown`
    : `read ${n(coverage.read)} of ${n(coverage.of)} ${itemWord(coverage, coverage.of)}`;
  return coverage.failed > 0 ? `${read}; ${n(coverage.failed)} could not be parsed` : read;
}
