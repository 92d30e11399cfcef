/**
 * The words an extension's page uses for occasions, outcomes, durations and
 * an approval, in one place so the receipts and the handlers say them alike.
 *
 * @module
 */
import type { InstallAnswer } from "../../runtime/web/api/events_types.ts";
import type { Receipt } from "../../runtime/web/api/types.ts";

/**
 * Why a handler was called, in a person's words; who asked (a receipt's
 * source) tells a person's own call from the command line or from a screen
 * apart from another call.
 */
export function occasionWords(occasion: Receipt["occasion"], source?: Receipt["source"]): string {
  switch (occasion.kind) {
    case "clock":
      return "On the clock";
    case "agent":
      return "By an agent";
    case "extension":
      if (source?.kind === "person" && source.via === "cli") return "By you, from the command line";
      if (source?.kind === "person" && source.via === "screen") return "By you, from its screen";
      if (source?.kind === "person" && source.via === "window") return "By you, with Run now";
      return "Called";
    case "lifecycle":
      return occasion.moment ? momentWords(occasion.moment) : "At a lifecycle moment";
    case "task":
      return occasion.task ? `In its device's ${occasion.task.name} task` : "In its device's task";
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
    case "cancelled":
      return "Cancelled";
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

/**
 * What approving an update did, in the window's words, line by line: "hello
 * 1.1.0 serves this project now — approved: net:api.example.com", then its
 * `installed` handler when one ran. Worded here from the answer's fields;
 * the answer's `lines` are what `sync install` prints, for a terminal.
 */
export function approvedWords(answer: InstallAnswer): string[] {
  const approved = answer.approved.length
    ? `approved: ${answer.approved.join(", ")}`
    : "nothing new to approve";
  const lines = [`${answer.id} ${answer.version} serves this project now — ${approved}`];
  if (answer.installed) lines.push(`Its installed handler ${answer.installed.handler} ran.`);
  return lines;
}
