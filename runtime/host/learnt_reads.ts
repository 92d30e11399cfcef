/**
 * What each handler began its last two calls with: the reads of project
 * memory it made before any host call that is not a read. The reads both
 * calls began with are made again beside the handler's next call, as it
 * starts, so that their answers are already in the worker when the handler
 * asks for them (`IsolateCall.ahead`): such a read does not cross to the host
 * and back while the handler waits.
 *
 * A read ahead is made at the start of the call it is made for, through the
 * call's own transaction and with its own access, exactly as the handler's
 * read would be; only a read made before the handler changed anything is
 * answered from it, so a handler always sees its own writes. A handler whose
 * first reads differ from call to call has nothing read ahead, and a new
 * version of its module starts afresh.
 *
 * @module
 */
import {
  MAX_READ_AHEAD_ARGS,
  MAX_READS_AHEAD,
  READ_FUNCTIONS,
  type ReadAhead,
} from "../isolate/mod.ts";
import { keepNewest } from "../internal/keep_newest.ts";

/** Handlers remembered at most; past it the oldest half is forgotten. */
const KEPT = 4_096;

interface Learnt {
  /** The service module the reads were made by. */
  source: string;
  /** The reads the last call began with. */
  last: ReadAhead[];
  /** The reads the last two calls both began with: what is read ahead. */
  both: ReadAhead[];
}

/** The reads each handler began its last calls with; see the module's documentation. */
export class LearntReads {
  #kept = new Map<string, Learnt>();

  /**
   * The reads to make beside the handler's next call.
   *
   * @param handler The handler, as the host names it in this process (project, package, handler).
   * @param source The service module the call runs: reads learnt under another are not made.
   */
  ahead(handler: string, source: string): ReadAhead[] {
    const learnt = this.#kept.get(handler);
    return learnt && learnt.source === source ? learnt.both : [];
  }

  /**
   * Remembers the reads a call of the handler that ended `ok` began with.
   *
   * @param handler The handler, as {@linkcode LearntReads.ahead} names it.
   * @param source The service module the call ran.
   * @param reads What the worker reported; anything that is not a read it may learn is left out.
   */
  learn(handler: string, source: string, reads: readonly ReadAhead[]): void {
    const made = reads.filter(isLearnable).slice(0, MAX_READS_AHEAD);
    const before = this.#kept.get(handler);
    const last = before?.source === source ? before.last : [];
    const both = made.filter((read, i) =>
      last.some((seen) => sameRead(seen, read)) &&
      made.findIndex((other) => sameRead(other, read)) === i
    );
    keepNewest(this.#kept, handler, { source, last: made, both }, KEPT);
  }
}

function sameRead(a: ReadAhead, b: ReadAhead): boolean {
  return a.fn === b.fn && a.args === b.args;
}

function isLearnable(read: ReadAhead): boolean {
  return READ_FUNCTIONS.includes(read.fn) && typeof read.args === "string" &&
    read.args.length <= MAX_READ_AHEAD_ARGS;
}
