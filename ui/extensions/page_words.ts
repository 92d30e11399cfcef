/**
 * The words an extension's page uses for occasions, outcomes and durations,
 * in one place so the receipts and the handlers say them alike.
 *
 * @module
 */
import type { Receipt } from "../../runtime/web/api/types.ts";

/** Why a handler was called, in a person's words. */
export function occasionWords(occasion: Receipt["occasion"]): string {
  switch (occasion.kind) {
    case "clock":
      return "On the clock";
    case "agent":
      return "By an agent";
    case "extension":
      return "Called";
    case "lifecycle":
      return occasion.moment ? momentWords(occasion.moment) : "At a lifecycle moment";
  }
}

/** A lifecycle moment, as "When installed". */
export function momentWords(moment: string): string {
  switch (moment) {
    case "installed":
      return "When installed";
    case "removed":
      return "When removed";
    case "opened":
      return "When the project is opened";
    default:
      return `At ${moment}`;
  }
}

/** How an attempt ended, in a word. */
export function outcomeWords(outcome: Receipt["outcome"]): string {
  switch (outcome) {
    case "ok":
      return "Done";
    case "failed":
      return "Failed";
    case "skipped":
      return "Skipped";
    case "interrupted":
      return "Interrupted";
  }
}

/** How long an attempt took: "12 ms", "1.4 s", "2 min 5 s". */
export function durationWords(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
}
