/**
 * Shapes shared across the host: what a call is, why it was made, what it left.
 *
 * @module
 */

/** Why a handler was called. */
export type OccasionKind = "clock" | "extension" | "agent" | "lifecycle";

/** The occasion a handler is told about: its kind and, for lifecycle, which moment. */
export interface Occasion {
  /** Why the handler was called. */
  kind: OccasionKind;
  /** For `lifecycle`: `installed`, `removed` or `opened`. */
  moment?: "installed" | "removed" | "opened";
}

/** Who asked for a call or a piece of work. Set once, never edited. */
export type Source =
  | { kind: "person" }
  | { kind: "clock" }
  | { kind: "agent"; name?: string }
  | { kind: "handler"; extensionId: string; extensionName: string; handler: string };

/** How an attempt ended. */
export type Outcome = "ok" | "failed" | "skipped";

/** What one call of a handler leaves behind. */
export interface Receipt {
  /** Sorts by when the attempt started, so receipts list newest first by id. */
  id: string;
  /** The project's resolved folder. */
  project: string;
  /** The package whose handler was called. */
  packageId: string;
  /** The handler's name, such as `issues.poll`; empty when the clock passed the whole package over. */
  handler: string;
  /** Why it was called. */
  occasion: Occasion;
  /** When the attempt started, as an ISO 8601 time. */
  startedAt: string;
  /** When it ended, as an ISO 8601 time. */
  endedAt: string;
  /** `ok`, `failed`, or `skipped` when the clock passed the handler over. */
  outcome: Outcome;
  /** `{ name, message }` when the outcome is not `ok`. */
  error?: { name: string; message: string };
}
