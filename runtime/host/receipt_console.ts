/**
 * A call's console lines, kept with its receipt so a person reads them where
 * the call is shown, as an editor's output channel keeps a run's output.
 * What is kept is bounded by `RECEIPT_CONSOLE_LIMITS`: a long line is cut
 * with a mark, and the lines past the count or the characters are counted as
 * left out, never dropped without a word. The lines are kept apart from the
 * receipt, under a key of their own, so that a list of receipts stays small.
 *
 * @module
 */
import { cutText } from "../internal/cut_text.ts";
import type { ConsoleLevel } from "../isolate/mod.ts";
import { RECEIPT_CONSOLE_LIMITS, type ReceiptConsoleLimits } from "../limits.ts";
import type { Receipt } from "../types.ts";
import { receiptConsoleKey } from "./keys.ts";

/** One console line of a call, as its receipt keeps it. */
export interface KeptConsoleLine {
  /** The console method the handler called, such as `warn`. */
  level: ConsoleLevel;
  /** What it wrote, as the isolate formatted it; the package's text, to be shown as text. */
  text: string;
}

/** The console lines kept with a receipt. */
export interface ReceiptConsole {
  /** The lines kept, in the order the handler wrote them. */
  lines: KeptConsoleLine[];
  /** How many lines the call wrote after those kept, which are not kept. */
  leftOut: number;
  /**
   * The call wrote at least `leftOut` lines more, not exactly: its worker
   * dropped lines and stopped before it said how many.
   */
  atLeast?: boolean;
}

/**
 * Collects a call's console lines within the limits of what a receipt keeps.
 * Lines are kept in order until one would pass the count or the characters;
 * that one and every later one are counted as left out, so what is kept has
 * no gap in it.
 */
export class ConsoleKeep {
  #lines: KeptConsoleLine[] = [];
  #chars = 0;
  #leftOut = 0;
  #dropping = false;
  #droppedCounted = false;
  #limits: ReceiptConsoleLimits;

  /**
   * Starts with nothing kept.
   *
   * @param limits What is kept at most; `RECEIPT_CONSOLE_LIMITS` when absent.
   */
  constructor(limits: ReceiptConsoleLimits = RECEIPT_CONSOLE_LIMITS) {
    this.#limits = limits;
  }

  /**
   * Takes one line the handler wrote.
   *
   * @param level The console method it called.
   * @param text What it wrote.
   */
  add(level: ConsoleLevel, text: string): void {
    const line = cutText(text, this.#limits.maxLineChars);
    if (
      this.#leftOut > 0 || this.#lines.length >= this.#limits.maxLines ||
      this.#chars + line.length > this.#limits.maxChars
    ) {
      this.#leftOut++;
      return;
    }
    this.#lines.push({ level, text: line });
    this.#chars += line.length;
  }

  /**
   * Takes the worker's word that it drops the handler's further lines: the
   * count comes with the call's end ({@linkcode ConsoleKeep.dropped}); until
   * it does, the call wrote at least one line more.
   */
  droppedBefore(): void {
    this.#dropping = true;
  }

  /**
   * Takes how many lines the worker dropped past its budget, which never
   * reached the host: each is a line left out.
   *
   * @param count The lines dropped.
   */
  dropped(count: number): void {
    this.#leftOut += count;
    this.#droppedCounted = true;
  }

  /** How many lines are kept. */
  get kept(): number {
    return this.#lines.length;
  }

  /** What to store with the receipt; null when the call wrote no line. */
  stored(): ReceiptConsole | null {
    const uncounted = this.#dropping && !this.#droppedCounted;
    const leftOut = this.#leftOut + (uncounted ? 1 : 0);
    if (this.#lines.length === 0 && leftOut === 0) return null;
    return { lines: [...this.#lines], leftOut, ...(uncounted ? { atLeast: true } : {}) };
  }
}

/**
 * Writes the console lines kept with a receipt, once: a receipt's lines are
 * never written over.
 *
 * @param kv The installation's KV.
 * @param receipt The receipt they belong to, written already.
 * @param lines What {@linkcode ConsoleKeep.stored} answered.
 * @returns Whether they were written (false when lines of that receipt were there already).
 */
export async function writeReceiptConsole(
  kv: Deno.Kv,
  receipt: Pick<Receipt, "project" | "packageId" | "id">,
  lines: ReceiptConsole,
): Promise<boolean> {
  const key = receiptConsoleKey(receipt.project, receipt.packageId, receipt.id);
  const written = await kv.atomic().check({ key, versionstamp: null }).set(key, lines).commit();
  return written.ok;
}

/**
 * Reads the console lines kept with a receipt.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param packageId The package whose handler was called.
 * @param id The receipt's id.
 * @returns The lines, or null when none are kept (none written, or dropped with the receipt).
 */
export async function readReceiptConsole(
  kv: Deno.Kv,
  project: string,
  packageId: string,
  id: string,
): Promise<ReceiptConsole | null> {
  const entry = await kv.get<ReceiptConsole>(receiptConsoleKey(project, packageId, id));
  return entry.value;
}
