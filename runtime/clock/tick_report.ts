/**
 * What one look of the clock answers: the handlers it called, what it
 * passed over and why, or that another process holds the clock.
 *
 * @module
 */

/** Why the clock passed something over. */
export type SkipReason =
  /** A person switched the package's clock off in this project. */
  | "switched-off"
  /** Nothing approved can serve the package in this project. */
  | "not-approved"
  /** The package is no longer installed in the project, or its artefact is gone. */
  | "not-installed"
  /** The project folder is gone; the project stays on the scheduled list. */
  | "project-gone"
  /** The project is on the list but this installation never opened it. */
  | "not-opened"
  /** Anything else that stopped the package from serving (a broken manifest, say). */
  | "unavailable"
  /** The handler was already running (a person's call, say); tried again at the next look. */
  | "busy";

/** One handler the clock called in a tick. */
export interface TickRun {
  /** The project's resolved folder. */
  project: string;
  /** The package whose handler it called. */
  packageId: string;
  /** The handler, such as `issues.poll`. */
  handler: string;
  /** How the attempt ended. */
  outcome: "ok" | "failed";
  /** `{ name, message }` when it failed. */
  error?: { name: string; message: string };
  /** How long past due it was, in ms; null when it had never run. */
  overdueMs: number | null;
}

/** Something the clock passed over in a tick, and why. */
export interface TickSkip {
  /** The project's folder, as the scheduled-projects list holds it. */
  project: string;
  /** Absent when the whole project was passed over. */
  packageId?: string;
  /** Absent when the whole package (or project) was passed over. */
  handler?: string;
  /** Why, as a code a program can test. */
  reason: SkipReason;
  /** Why, in words a person reads. */
  message: string;
}

/** What one look of the clock did. */
export interface TickReport {
  /** When the clock looked. */
  at: string;
  /** The handlers it called, in the order it called them. */
  ran: TickRun[];
  /** What it passed over, and why. */
  skipped: TickSkip[];
  /**
   * Set when another process holds the installation's clock, so this one
   * looked at nothing: "one handler at a time for the machine" needs one clock.
   */
  elsewhere?: string;
}
