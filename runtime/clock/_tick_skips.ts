/**
 * What the clock passes over, reported once: every skip goes into the
 * tick's report, but a receipt (outcome "skipped"), or a log line for what
 * no package owns, is written only when the skip starts or its reason
 * changes, not once a minute. The mark that remembers it is cleared once the
 * thing runs again. Private to the clock's folder.
 *
 * @module
 */
import { ApprovalRequiredError, NotFoundError } from "../errors.ts";
import { writeReceipt } from "../host/mod.ts";
import { newId } from "../internal/id.ts";
import type { EventSink } from "../sync_event.ts";
import type { Receipt } from "../types.ts";
import { clearSkip, markSkip, type SkipMark } from "./stamps.ts";
import type { SkipReason, TickReport } from "./tick_report.ts";

/** Where a skip is: a project, a package in it, or one of its handlers. */
export interface SkipKey {
  /** The project's folder, as the scheduled-projects list holds it. */
  project: string;
  /** The package; absent for the whole project. */
  id?: string;
  /** The handler; absent for the whole package. */
  handler?: string;
}

/** What {@linkcode TickSkips} writes with and tells to. */
export interface TickSkipsOptions {
  /** The installation's KV: skip marks, receipts. */
  kv: Deno.Kv;
  /** The clock's time, in ms. */
  now: () => number;
  /** Where the clock's own lines go. */
  log: (line: string) => void;
  /** Where the receipts of skips are told; nowhere when absent. */
  events?: EventSink;
}

/** Reports what the clock passes over; one per clock. */
export class TickSkips {
  #kv: Deno.Kv;
  #now: () => number;
  #log: (line: string) => void;
  #events: EventSink | undefined;

  /**
   * Skips reported in an installation.
   *
   * @param options The installation, the clock's time, its log, and where receipts are told.
   */
  constructor(options: TickSkipsOptions) {
    this.#kv = options.kv;
    this.#now = options.now;
    this.#log = options.log;
    this.#events = options.events;
  }

  /**
   * Records a skip in the report, and reports it once — a receipt, or a log
   * line for what no package owns — when it starts or its reason changes.
   *
   * @param report The tick's report.
   * @param marks The project's skip marks as the tick read them.
   * @param key What was passed over.
   * @param reason Why, as a code.
   * @param what Why in words; whether it leaves a receipt, and for which packages when
   *   the whole project was passed over.
   */
  async skip(
    report: TickReport,
    marks: Map<string, SkipMark>,
    key: SkipKey,
    reason: SkipReason,
    what: { message: string; receipt: boolean; receiptIds?: readonly string[] },
  ): Promise<void> {
    const { project, id, handler } = key;
    report.skipped.push({
      project,
      ...(id ? { packageId: id } : {}),
      ...(handler ? { handler } : {}),
      reason,
      message: what.message,
    });
    const now = this.#now();
    const known = marks.get(`${id ?? ""}\0${handler ?? ""}`);
    if (known?.reason === reason) return;
    if (!await markSkip(this.#kv, key, { reason, at: now })) return;
    this.#log(
      `[${id ?? "clock"}] skipped ${handler ?? ""}${
        handler ? " " : ""
      }(${reason}): ${what.message}`,
    );
    if (!what.receipt) return;
    for (const packageId of id ? [id] : what.receiptIds ?? []) {
      await this.receipt(project, packageId, handler, reason, what.message);
    }
  }

  /**
   * A receipt for an attempt the clock passed over.
   *
   * @param project The project's folder.
   * @param packageId The package.
   * @param handler The handler; absent when the whole package was passed over.
   * @param reason Why, as a code.
   * @param message Why, in words.
   */
  async receipt(
    project: string,
    packageId: string,
    handler: string | undefined,
    reason: SkipReason,
    message: string,
  ): Promise<void> {
    const now = this.#now();
    const stamp = new Date(now).toISOString();
    const receipt: Receipt = {
      id: newId(now),
      project,
      packageId,
      // Empty when the whole package was passed over before its handlers were known.
      handler: handler ?? "",
      occasion: { kind: "clock" },
      startedAt: stamp,
      endedAt: stamp,
      outcome: "skipped",
      error: { name: reason, message },
    };
    await writeReceipt(this.#kv, receipt);
    this.#events?.publish({ type: "receipt", project, packageId, receipt });
  }

  /**
   * Clears the mark of something passed over before that is not passed over now.
   *
   * @param marks The project's skip marks as the tick read them.
   * @param key What is no longer passed over.
   */
  async unmark(marks: Map<string, SkipMark>, key: SkipKey): Promise<void> {
    if (marks.has(`${key.id ?? ""}\0${key.handler ?? ""}`)) await clearSkip(this.#kv, key);
  }
}

/**
 * The skip reason for an error from resolving which package serves.
 *
 * @param error What `servingPackage` threw.
 */
export function skipReasonOf(error: unknown): SkipReason {
  if (error instanceof ApprovalRequiredError) return "not-approved";
  if (error instanceof NotFoundError) return "not-installed";
  return "unavailable";
}
