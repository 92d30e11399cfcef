/**
 * The receipt an attempt leaves, and the handler's console lines that go
 * with it: held back until the call counts (its claim held, or its receipt
 * recorded), kept with the receipt once it does, and written, with the
 * claim's release or alone, whatever happened. The last step of an attempt
 * (`call.ts`).
 *
 * @module
 */
import { CancelledError } from "../errors.ts";
import { describeError } from "../internal/describe_error.ts";
import { newId } from "../internal/id.ts";
import type { ConsoleLevel } from "../isolate/mod.ts";
import type { Receipt } from "../types.ts";
import type { AttemptOf, CallOptions, CallResources } from "./call_options.ts";
import { consoleLine } from "./console_line.ts";
import { ConsoleKeep, writeReceiptConsole } from "./receipt_console.ts";
import { boundReceipt, writeReceipt } from "./receipts.ts";

/** What the receipt is written with: the attempt's claim, as it ended (`_handler_claim.ts`). */
export interface EndedClaim {
  /** The claim is held in the installation: the receipt is written with its release. */
  readonly held: boolean;
  /** The receipt was written already, by the write that recorded a call that never claimed. */
  readonly recorded: boolean;
  /** The call counts: its claim held, or its receipt recorded. */
  readonly counted: boolean;
  /** Waits for a claim begun to be decided, whatever it decides. */
  settled(): Promise<void>;
  /** Takes the handler out of this process's running handlers. */
  leaveHere(): void;
  /** Lets go of the claim, writing `receipt` in the same write when given. */
  release(receipt?: Receipt): Promise<void>;
  /** Writes down in the journal that the call ended. */
  journalEnded(): void;
}

/** How an attempt ends, for {@linkcode AttemptReceipt.leave}. */
export interface Leaving {
  /** The attempt's claim, whether or not it claimed. */
  claim: EndedClaim;
  /** The keys of the work the call ordered; committed with it when it ended `ok`. */
  ordered: readonly string[];
  /** The attempt is made again: it leaves no receipt. */
  again: boolean;
}

/** The receipt of one attempt, and its console lines; see the module's documentation. */
export class AttemptReceipt {
  /** The receipt as it stands; its outcome is `ok` until the attempt fails. */
  readonly receipt: Receipt;
  #resources: CallResources;
  #options: CallOptions;
  #of: AttemptOf;
  /** The handler's console lines, told once the call is known to count. */
  #lines: string[] = [];
  #telling = false;
  /** The lines kept with the receipt, once the call counts. */
  #keep = new ConsoleKeep();

  /**
   * Starts the receipt of an attempt starting at `startedAt`.
   *
   * @param resources Where lines and events go, and the installation.
   * @param of The project, package and handler.
   * @param options Why and for whom the call is made.
   * @param startedAt When the attempt started, in ms.
   */
  constructor(resources: CallResources, of: AttemptOf, options: CallOptions, startedAt: number) {
    this.#resources = resources;
    this.#options = options;
    this.#of = of;
    this.receipt = {
      id: newId(startedAt),
      project: of.project,
      packageId: of.id,
      handler: of.handler,
      occasion: options.occasion,
      source: options.source,
      startedAt: new Date(startedAt).toISOString(),
      endedAt: "",
      outcome: "ok",
    };
  }

  /** A console line of the handler's, or the worker's notice that its further lines are dropped. */
  log(level: ConsoleLevel, text: string, notice: boolean): void {
    if (notice) this.#keep.droppedBefore();
    else this.#keep.add(level, text);
    const line = consoleLine(this.#of.id, level, text);
    if (this.#telling) this.#resources.log(line);
    else this.#lines.push(line);
  }

  /** Lines the worker dropped past the handler's budget, never sent. */
  dropped(count: number): void {
    this.#keep.dropped(count);
  }

  /** The call counts (its claim held, or its receipt recorded): it is told as started, and its lines. */
  counts(): void {
    const { project, id, handler } = this.#of;
    this.#resources.events?.publish({
      type: "handler-started",
      project,
      packageId: id,
      handler,
      receiptId: this.receipt.id,
      startedAt: this.receipt.startedAt,
    });
    this.#telling = true;
    for (const line of this.#lines.splice(0)) this.#resources.log(line);
  }

  /** Notes in the receipt how many lines are kept with it, before it is written. */
  noteConsole(): void {
    if (this.#keep.kept > 0) this.receipt.consoleLines = this.#keep.kept;
    else delete this.receipt.consoleLines;
  }

  /** The handler answered. */
  ended(now: number): void {
    this.receipt.endedAt = new Date(now).toISOString();
  }

  /** The attempt failed with `failure`. */
  failed(failure: unknown, now: number): void {
    this.receipt.outcome = failure instanceof CancelledError ? "cancelled" : "failed";
    this.receipt.error = describeError(failure);
    this.receipt.endedAt = new Date(now).toISOString();
  }

  /**
   * Lets go of the claim and writes the receipt, in one write (or the receipt
   * alone, or nothing when the write that recorded an unclaimed call wrote
   * it already), then the lines kept with it, and tells what was written.
   * Whether the write fails or not, the caller is told what happened to the
   * call: a call that committed is not reported as failed because its
   * receipt could not be written.
   */
  async leave({ claim, ordered, again }: Leaving): Promise<void> {
    const resources = this.#resources;
    const receipt = this.receipt;
    const { project, id, handler } = this.#of;
    // A call that failed before its claim was decided lets go of it once it is.
    await claim.settled();
    claim.leaveHere();
    const busyCall = receipt.error?.name === "HandlerBusyError" && !claim.held;
    // A call that never counted told none of its lines, and keeps none; an
    // ok call's orders were committed with it.
    if (claim.counted) this.noteConsole();
    else delete receipt.consoleLines;
    if (receipt.outcome === "ok" && ordered.length > 0) receipt.ordered = [...ordered];
    const wanted = !(busyCall && this.#options.noReceiptWhenBusy) && !again && !claim.recorded;
    let written = claim.recorded;
    try {
      if (claim.held) await claim.release(wanted ? receipt : undefined);
      else if (wanted) await writeReceipt(resources.kv, receipt);
      written ||= wanted;
    } catch (error) {
      resources.log(
        `[host] the receipt of ${handler} in ${project} (${receipt.id}, outcome ` +
          `${receipt.outcome}) could not be written: ${describeError(error).message}` +
          (claim.held ? "; its claim becomes an interrupted receipt once it runs out" : ""),
      );
    }
    // Written down as ended once its receipt is, or once there is none to write.
    claim.journalEnded();
    const kept = this.#keep.stored();
    if (written && receipt.consoleLines !== undefined && kept) {
      await writeReceiptConsole(resources.kv, receipt, kept).catch((error) =>
        resources.log(
          `[host] the console lines of ${handler} in ${project} (${receipt.id}) could not be ` +
            `kept with its receipt: ${describeError(error).message}`,
        )
      );
    }
    if (written) this.#options.onReceipt?.(boundReceipt(receipt));
    // Told once written, so a page that reads again on hearing it finds it.
    if (written) {
      resources.events?.publish({
        type: "receipt",
        project,
        packageId: id,
        receipt: boundReceipt(receipt),
        ...(receipt.outcome === "ok" && ordered.length > 0 ? { workOrdered: true } : {}),
      });
    }
    if (claim.counted) {
      resources.events?.publish({
        type: "handler-ended",
        project,
        packageId: id,
        handler,
        receiptId: receipt.id,
        outcome: receipt.outcome,
      });
    }
  }
}
