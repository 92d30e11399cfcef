/**
 * The calls a process has started and not yet ended, written down before
 * each runs. A call claims its handler in the installation only once it needs
 * to (`call.ts`), so until then the installation holds no trace of it; this
 * journal is that trace, so that every attempt leaves a receipt even when its
 * process is killed in its first milliseconds.
 *
 * One file per process, `<home>/running/<id>.calls`, beside its lock file and
 * named by the same id: a line when a call starts (its receipt as it stood)
 * and one when it ends, written synchronously — a process killed with
 * `kill -9` leaves what it wrote with the system. The next process to own the
 * installation turns every call a gone process started and never ended, and
 * whose receipt is not written, into an `interrupted` receipt
 * ({@linkcode recordJournaledCalls}).
 *
 * @module
 */
import { join } from "node:path";
import type { Receipt } from "../types.ts";
import type { ProcessLock } from "./process_lock.ts";
import { boundReceipt } from "./receipts.ts";
import { addInterruptedReceipt } from "./running_claim.ts";

/** Past this many bytes, the journal is emptied the next time no call is open in it. */
const EMPTY_AFTER_BYTES = 256 * 1024;

const encoder = new TextEncoder();

/** The journal file of the process whose lock has `id`. */
function journalFile(home: string, id: string): string {
  return join(home, "running", `${id}.calls`);
}

/** The journal of this process's calls; see the module's documentation. */
export class CallJournal {
  #home: string;
  #id: string;
  #file: Deno.FsFile | null;
  #open = 0;
  #bytes = 0;

  private constructor(home: string, id: string, file: Deno.FsFile) {
    this.#home = home;
    this.#id = id;
    this.#file = file;
  }

  /**
   * Opens this process's journal beside its lock. Never throws.
   *
   * @param home The installation folder.
   * @param lock This process's lock.
   * @returns The journal; null where the lock is not held (no other process
   *   could tell that this one is gone) or no file can be made.
   */
  static open(home: string, lock: ProcessLock): CallJournal | null {
    if (!lock.held) return null;
    try {
      const file = Deno.openSync(journalFile(home, lock.mark.id), {
        append: true,
        create: true,
      });
      const journal = new CallJournal(home, lock.mark.id, file);
      // The pid, for the messages of the receipts it may leave.
      if (!journal.#write(`P\t${lock.mark.pid}\n`)) return null;
      return journal;
    } catch {
      return null;
    }
  }

  /**
   * Writes down that a call starts.
   *
   * @param receipt The call's receipt as it stands when it starts.
   * @returns False when it could not be written: the call must then claim
   *   its handler before it runs.
   */
  started(receipt: Receipt): boolean {
    if (!this.#write(`S\t${JSON.stringify(boundReceipt(receipt))}\n`)) return false;
    this.#open++;
    return true;
  }

  /**
   * Writes down that a call {@linkcode started} ended (its receipt written,
   * or none to write). Once no call is open and the file has grown, it is
   * emptied.
   *
   * @param id The call's receipt id.
   */
  ended(id: string): void {
    this.#open = Math.max(0, this.#open - 1);
    if (this.#open === 0 && this.#bytes > EMPTY_AFTER_BYTES && this.#file) {
      try {
        this.#file.truncateSync(0);
        this.#bytes = 0;
        return;
      } catch { /* written down instead */ }
    }
    this.#write(`E\t${id}\n`);
  }

  /** Closes and removes the journal: this process runs no more calls. */
  close(): void {
    if (this.#file === null) return;
    try {
      this.#file.close();
    } catch { /* already closed */ }
    this.#file = null;
    try {
      Deno.removeSync(journalFile(this.#home, this.#id));
    } catch { /* already gone */ }
  }

  #write(line: string): boolean {
    if (this.#file === null) return false;
    const bytes = encoder.encode(line);
    try {
      for (let at = 0; at < bytes.byteLength;) at += this.#file.writeSync(bytes.subarray(at));
      this.#bytes += bytes.byteLength;
      return true;
    } catch {
      return false;
    }
  }
}

/** Options for {@linkcode recordJournaledCalls}. */
export interface RecordJournaledCallsOptions {
  /** The host's time, in ms. */
  now: number;
  /** This process's lock, to tell which processes are gone. */
  lock: ProcessLock;
}

/**
 * Leaves a receipt of outcome `interrupted` for every call the journal of a
 * gone process started and never ended, unless its receipt is written (by
 * its own last write, or from its claim), and removes those journals. Run
 * when a process that owns the installation starts, after the claims of gone
 * processes became their receipts.
 *
 * @param kv The installation's KV.
 * @param home The installation folder.
 * @param options The host's time and this process's lock.
 * @returns The receipts written.
 */
export async function recordJournaledCalls(
  kv: Deno.Kv,
  home: string,
  options: RecordJournaledCallsOptions,
): Promise<Receipt[]> {
  const written: Receipt[] = [];
  const folder = join(home, "running");
  let names: string[];
  try {
    names = (await Array.fromAsync(Deno.readDir(folder)))
      .filter((entry) => entry.isFile && entry.name.endsWith(".calls"))
      .map((entry) => entry.name);
  } catch {
    return written;
  }
  for (const name of names) {
    const id = name.slice(0, -".calls".length);
    if (await options.lock.isGone({ id, pid: 0 }) !== true) continue;
    const path = join(folder, name);
    const { pid, open } = unended(await Deno.readTextFile(path));
    for (const receipt of open) {
      const op = kv.atomic();
      const claim = {
        startedAt: Date.parse(receipt.startedAt),
        until: 0,
        owner: { id, pid },
        receipt,
      };
      const added = await addInterruptedReceipt(kv, op, claim, options.now);
      if (added && (await op.commit()).ok) written.push(added);
    }
    await Deno.remove(path).catch(() => {});
  }
  return written;
}

/** The pid a journal names and the receipts of the calls it started and never ended. */
function unended(text: string): { pid: number; open: Receipt[] } {
  let pid = 0;
  const open = new Map<string, Receipt>();
  for (const line of text.split("\n")) {
    const tab = line.indexOf("\t");
    const [kind, rest] = [line.slice(0, tab), line.slice(tab + 1)];
    try {
      if (kind === "P") pid = Number(rest) || 0;
      else if (kind === "S") {
        const receipt = JSON.parse(rest) as Receipt;
        open.set(receipt.id, receipt);
      } else if (kind === "E") open.delete(rest);
    } catch {
      // A line cut short by the kill: the call it began is not known.
    }
  }
  return { pid, open: [...open.values()] };
}
