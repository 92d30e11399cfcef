/**
 * Shapes shared across the host: who asked for a call, how it ended, what it left.
 * Why it was made, its `Occasion`, is what the handler is told: the extension API defines it.
 *
 * @module
 */
import type { Occasion } from "./extension_api/service.ts";

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
