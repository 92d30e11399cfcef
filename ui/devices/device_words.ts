/**
 * A device's facts in words: its lamp, its modes, a read's coverage, an
 * attempt's outcome and trigger. Unknown stays unknown: a total the device
 * could not count is said as unknown, never as 0.
 *
 * @module
 */
import type {
  Coverage,
  DeviceLamp,
  DeviceView,
  TaskAttempt,
} from "../../runtime/web/api/devices_types.ts";

/** The words beside a device's lamp. */
export function lampWords(lamp: DeviceLamp): string {
  switch (lamp) {
    case "dark":
      return "Not connected";
    case "steady":
      return "Ready";
    case "breathing":
      return "Reading";
    case "paused":
      return "Paused";
    case "red":
      return "Needs you";
  }
}

/** A state's words for the list: the lamp's, or what the lamp shows of a failed device. */
export function stateWords(device: DeviceView): string {
  return lampWords(device.lamp);
}

/** "every 15 minutes", "every hour", "every 2 days" from a schedule's `15m`, `1h`, `2d`. */
export function everyWords(every: string): string {
  const match = /^(\d+)([mhd])$/.exec(every);
  if (!match) return `every ${every}`;
  const count = Number(match[1]);
  const unit = { m: "minute", h: "hour", d: "day" }[match[2] as "m" | "h" | "d"];
  return count === 1 ? `every ${unit}` : `every ${count} ${unit}s`;
}

/** How the device reads, one line a mode (the website mode is a link, drawn by its section). */
export function modeLines(device: DeviceView): string[] {
  const lines: string[] = [];
  if (device.modes.includes("scheduled")) {
    const every = device.tasks.find((task) => task.name === "sync")?.every ??
      device.tasks.find((task) => task.every)?.every;
    lines.push(every ? `Reads ${everyWords(every)}` : "Reads on a schedule");
  }
  if (device.modes.includes("observation")) lines.push("Watches the folder for changes");
  if (device.modes.includes("on-demand")) lines.push("Reads when you ask");
  return lines;
}

/** A whole number with its thousands marked: 1,204. */
function n(value: number): string {
  return value.toLocaleString("en-US");
}

/**
 * A read's coverage in a sentence, in the words the device calls its items:
 * "Read 1,204 of 1,210 messages; 6 could not be parsed", "Read 12 items; how
 * many there are is unknown".
 */
export function coverageWords(coverage: Coverage): string {
  const words = coverage.items ?? { one: "item", other: "items" };
  const items = (count: number) => count === 1 ? words.one : words.other;
  const read = coverage.of === null
    ? `Read ${n(coverage.read)} ${items(coverage.read)}; how many there are is unknown`
    : `Read ${n(coverage.read)} of ${n(coverage.of)} ${items(coverage.of)}`;
  return coverage.failed > 0 ? `${read}; ${n(coverage.failed)} could not be parsed` : read;
}

/** How an attempt ended, in words; a run still going says so. */
export function attemptOutcomeWords(outcome: TaskAttempt["outcome"]): string {
  switch (outcome) {
    case undefined:
      return "Running";
    case "ok":
      return "Done";
    case "failed":
      return "Failed";
    case "transient":
      return "Failed for now; tried again by itself";
    case "unknown":
      return "Outcome unknown";
    case "fenced":
      return "Called off: the account changed";
    case "cancelled":
      return "Cancelled";
  }
}

/** Why an attempt ran, in words. */
export function triggerWords(trigger: TaskAttempt["trigger"]): string {
  switch (trigger) {
    case "schedule":
      return "On its schedule";
    case "fresh":
      return "First read of the account";
    case "observation":
      return "The folder changed";
    case "person":
      return "You asked";
    case "agent":
      return "An agent asked";
    case "retry":
      return "Tried again";
  }
}
