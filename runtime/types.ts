/**
 * Shapes shared across the host: what a call is, why it was made, what it left.
 *
 * @module
 */

/** Why a handler was called. */
export type OccasionKind = "clock" | "extension" | "agent" | "lifecycle";

/** The occasion a handler is told about: its kind and, for lifecycle, which moment. */
export interface Occasion {
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
  id: string;
  project: string;
  packageId: string;
  handler: string;
  occasion: Occasion;
  startedAt: string;
  endedAt: string;
  outcome: Outcome;
  /** `{ name, message }` when the outcome is not `ok`. */
  error?: { name: string; message: string };
}
