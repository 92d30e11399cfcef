/**
 * Shapes shared across the host: who asked for a call, how it ended, what it left.
 * Why it was made, its `Occasion`, is what the handler is told: the extension API defines it.
 *
 * @module
 */
import type { Occasion } from "./extension_api/service.ts";

/** Who asked for a call or a piece of work. Set once, never edited. */
export type Source =
  | {
    kind: "person";
    /**
     * Where the person asked, when it was not the window's own controls:
     * `window` when they pressed Run now on an extension's page, `cli` for a
     * handler they called from the command line (`sync call`), `screen` for a
     * call an extension's screen made while they used it. Absent on sources
     * stored before it was kept.
     */
    via?: "window" | "cli" | "screen";
  }
  | { kind: "clock" }
  | {
    kind: "agent";
    /** The agent, or the name the MCP client gave itself. */
    name?: string;
    /**
     * The work the agent's session performs, when Sync started it for an
     * order; absent for an agent a person connected themselves.
     */
    workKey?: string;
    /** The extension whose handler ordered that work, when one did. */
    extensionId?: string;
  }
  | {
    kind: "handler";
    extensionId: string;
    extensionName: string;
    handler: string;
    /**
     * Why the handler was called when it ordered the work: the clock, a
     * person or another extension, an agent, or a lifecycle moment. A source
     * an earlier version of Sync stored lacks it, and the next three: it is
     * shown with what it has.
     */
    occasion?: Occasion;
    /** Who asked for that call: the clock, a person, an agent. Present with `occasion`. */
    calledBy?: Source;
    /** When that call began, as an ISO 8601 time. Present with `occasion`. */
    calledAt?: string;
    /**
     * What the handler does, in the package's words when it ordered: the
     * schedule row's description when the clock called it, else the
     * handler's own. Present with `occasion`.
     */
    description?: string;
  };

/**
 * How an attempt ended: `interrupted` when the process running it stopped
 * before it ended (killed, or the machine lost power), as the next process
 * found; `cancelled` when its caller called it off while it ran (an MCP
 * client's `notifications/cancelled`), so nothing of it was committed.
 */
export type Outcome = "ok" | "failed" | "skipped" | "interrupted" | "cancelled";

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
  /** Who asked for the call (absent on receipts written before sources were kept). */
  source?: Source;
  /** When the attempt started, as an ISO 8601 time. */
  startedAt: string;
  /** When it ended, as an ISO 8601 time. */
  endedAt: string;
  /**
   * `ok`, `failed`, `skipped` when the clock passed the handler over, or
   * `interrupted` when its process stopped before the call ended.
   */
  outcome: Outcome;
  /**
   * `{ name, message }` when the outcome is not `ok`; stored cut to
   * `RECEIPT_LIMITS` (`runtime/limits.ts`).
   */
  error?: { name: string; message: string };
  /**
   * How many of the handler's console lines of this call are kept with the
   * receipt (`receipt_console.ts` in the host); absent when it wrote none.
   */
  consoleLines?: number;
  /**
   * The keys of the work the call ordered, committed with it (an `ok`
   * call's only); a session that performs an order is named by its key.
   */
  ordered?: string[];
  /**
   * The records the call's commit wrote or removed, in key order, at most
   * `RECEIPT_LIMITS.maxRecords`; absent when it wrote none.
   */
  records?: ReceiptRecord[];
  /** Records the call wrote past those `records` names; absent when none was left out. */
  recordsLeftOut?: number;
}

/** A record a handler call wrote, as its receipt names it. */
export interface ReceiptRecord {
  /** The record's kind, such as `issues.issue`. */
  kind: string;
  /** Its name: its key after `<kind>/`. */
  name: string;
  /** The revision the call wrote; for a removal, the revision the record had. */
  revision: number;
  /** The call removed it. */
  removed?: true;
}
