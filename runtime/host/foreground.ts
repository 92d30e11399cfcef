/**
 * A person's requests go first: while one is young, background work (a
 * device's task step) waits — its host calls before they run, its parses
 * before they start, and its handler's own code, which pauses in its isolate
 * on {@linkcode Foreground.held} — so the request does not share the
 * machine's cores, its thread and its KV with it. A request holds background
 * work back for `holdMs` at most, so one that streams or waits long (an event
 * stream, a run a person started and waits for) cannot stop it.
 *
 * @module
 */

/** Options of a {@linkcode Foreground}. */
export interface ForegroundOptions {
  /** The longest one request holds background work back, in ms; 100 by default. */
  holdMs?: number;
  /** The clock, in ms. */
  now?: () => number;
}

/** A person's request in flight, with when it began. */
interface InFlight {
  at: number;
}

/**
 * The person's requests in flight, and what background work waits for.
 *
 * @example
 * ```ts
 * const foreground = new Foreground();
 * const leave = foreground.enter(); // a request began
 * const held = foreground.wait(); // background work: a promise while the request is young
 * leave(); // the request was answered: `held` resolves
 * await held;
 * ```
 */
export class Foreground {
  /**
   * 1 while a young request is in flight, 0 otherwise, in memory shared with
   * the isolate workers: a background call's handler pauses on it
   * (`Atomics.wait`), and is woken when it goes back to 0.
   */
  readonly held: Int32Array = new Int32Array(new SharedArrayBuffer(4));
  #holdMs: number;
  #now: () => number;
  #inFlight = new Set<InFlight>();
  #waiters: (() => void)[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Makes the gate, open.
   *
   * @param options How long a request holds work back, and the clock.
   */
  constructor(options: ForegroundOptions = {}) {
    this.#holdMs = options.holdMs ?? 100;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * A person's request began.
   *
   * @returns What to call once it is answered (again, it does nothing).
   */
  enter(): () => void {
    const entry: InFlight = { at: this.#now() };
    this.#inFlight.add(entry);
    this.#update();
    return () => {
      if (!this.#inFlight.delete(entry)) return;
      this.#update();
    };
  }

  /**
   * What background work waits for before its next host call.
   *
   * @returns Null when no young request is in flight: go on at once, with no
   *   turn of the event loop; otherwise a promise that resolves once none is.
   */
  wait(): Promise<void> | null {
    if (!this.#holding()) return null;
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** A request in flight is younger than `holdMs`. */
  #holding(): boolean {
    const now = this.#now();
    for (const entry of this.#inFlight) {
      if (now - entry.at < this.#holdMs) return true;
    }
    return false;
  }

  /**
   * Brings {@linkcode Foreground.held} and the waiting work up to date: while a
   * young request is in flight, looks again when the youngest reaches
   * `holdMs`; once none is, lets everything waiting go.
   */
  #update(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = this.#now();
    let soonest = Infinity;
    for (const entry of this.#inFlight) {
      const left = entry.at + this.#holdMs - now;
      if (left > 0) soonest = Math.min(soonest, left);
    }
    if (soonest !== Infinity) {
      Atomics.store(this.held, 0, 1);
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#update();
      }, Math.ceil(soonest));
      return;
    }
    Atomics.store(this.held, 0, 0);
    Atomics.notify(this.held, 0);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}
