/**
 * The owner's event bus: facts published where they happen (a receipt
 * written, a switch, an install) reach every watcher of their project in
 * this process. One process owns the installation at a time and the CLI's
 * commands run in it while `serve` runs, so a bus in that process hears
 * everything done to the installation, the CLI's and the clock's included.
 *
 * Publishing never waits for a watcher. Each watcher has a queue of at most
 * `EVENT_LIMITS.maxQueuedEvents` facts and `maxQueuedBytes` bytes of their
 * JSON; a watcher that falls further behind (a page
 * whose connection does not drain) loses its queue and is told `resync`
 * instead, so it reads the state again: the host never holds more than that
 * for anyone.
 *
 * @module
 */
import { EVENT_LIMITS } from "./limits.ts";
import type { EventSink, SyncEvent } from "./sync_event.ts";

/** Told instead of the facts a watcher fell too far behind to be given: read the state again. */
export interface ResyncEvent {
  /** The kind of notice. */
  type: "resync";
  /** How many facts were dropped. */
  dropped: number;
}

/** What a watcher is given: a fact, or the notice that some were dropped. */
export type DeliveredEvent = SyncEvent | ResyncEvent;

/** Options for {@linkcode EventBus.subscribe}. */
export interface SubscribeOptions {
  /** Only the facts of this project (a resolved folder); every project's when absent. */
  project?: string;
  /** Only facts of these kinds; every kind when absent. Others are never held for the watcher. */
  types?: ReadonlySet<SyncEvent["type"]>;
  /** The most facts held for this watcher; past it they are dropped for a `resync`. */
  maxQueued?: number;
  /** The most bytes of facts (their JSON) held for this watcher; past it they are dropped for a `resync`. */
  maxQueuedBytes?: number;
}

const encoder = new TextEncoder();

/** The bytes of a fact's JSON: what a watcher's queue counts. */
function bytesOf(event: SyncEvent): number {
  return encoder.encode(JSON.stringify(event)).byteLength;
}

/** One watcher's place on the bus: the facts held for it until it takes them. */
export class EventSubscription {
  #queue: SyncEvent[] = [];
  #sizes: number[] = [];
  #bytes = 0;
  #dropped = 0;
  #project: string | undefined;
  #types: ReadonlySet<SyncEvent["type"]> | undefined;
  #maxQueued: number;
  #maxQueuedBytes: number;
  #wake: (() => void) | undefined;
  #closed = false;
  #onClose: () => void;

  /**
   * Made by {@linkcode EventBus.subscribe}.
   *
   * @param options Which project it watches and how much it may hold.
   * @param onClose Takes it off the bus.
   */
  constructor(options: SubscribeOptions, onClose: () => void) {
    this.#project = options.project;
    this.#types = options.types;
    this.#maxQueued = Math.max(1, options.maxQueued ?? EVENT_LIMITS.maxQueuedEvents);
    this.#maxQueuedBytes = Math.max(1, options.maxQueuedBytes ?? EVENT_LIMITS.maxQueuedBytes);
    this.#onClose = onClose;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Holds a fact for the watcher, if it is of its project and kinds. Never waits.
   *
   * @param event The fact published.
   * @param bytes The bytes of its JSON, measured once for every watcher that holds it.
   */
  offer(event: SyncEvent, bytes: () => number = () => bytesOf(event)): void {
    if (this.#closed) return;
    if (this.#project !== undefined && event.project !== this.#project) return;
    if (this.#types !== undefined && !this.#types.has(event.type)) return;
    // Measured only for a watcher that holds the fact, once for all of them.
    const size = bytes();
    if (
      this.#queue.length >= this.#maxQueued || this.#bytes + size > this.#maxQueuedBytes
    ) {
      // Too far behind: what is held is worth less than reading the state again.
      this.#dropped += this.#queue.length + 1;
      this.#queue = [];
      this.#sizes = [];
      this.#bytes = 0;
    } else {
      this.#queue.push(event);
      this.#sizes.push(size);
      this.#bytes += size;
    }
    this.#wake?.();
  }

  /**
   * The next fact, or `resync` when some were dropped; waits for one at most `timeoutMs`.
   *
   * @param timeoutMs How long to wait when nothing is held.
   * @returns The fact, or null when the wait ran out or the subscription was closed.
   */
  async next(timeoutMs: number): Promise<DeliveredEvent | null> {
    if (!this.#ready() && !this.#closed) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
      this.#wake = undefined;
    }
    if (this.#closed) return null;
    if (this.#dropped > 0) {
      const dropped = this.#dropped;
      this.#dropped = 0;
      return { type: "resync", dropped };
    }
    const event = this.#queue.shift() ?? null;
    if (event !== null) this.#bytes -= this.#sizes.shift()!;
    return event;
  }

  /** Takes the watcher off the bus and ends a wait in {@linkcode EventSubscription.next}. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#sizes = [];
    this.#bytes = 0;
    this.#onClose();
    this.#wake?.();
  }

  #ready(): boolean {
    return this.#dropped > 0 || this.#queue.length > 0;
  }
}

/** The owner's bus: one per process that owns the installation. */
export class EventBus implements EventSink {
  #subscriptions = new Set<EventSubscription>();

  /**
   * Tells every watcher of the event's project; never waits, never throws.
   *
   * @param event The fact, after it is written.
   */
  publish(event: SyncEvent): void {
    let bytes: number | undefined;
    const measured = () => bytes ??= bytesOf(event);
    for (const subscription of this.#subscriptions) subscription.offer(event, measured);
  }

  /**
   * A new watcher; close it when done.
   *
   * @param options Which project it watches and how much it may hold.
   */
  subscribe(options: SubscribeOptions = {}): EventSubscription {
    const subscription: EventSubscription = new EventSubscription(
      options,
      () => this.#subscriptions.delete(subscription),
    );
    this.#subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Closes every watcher, so the streams that carry them end: a server
   * shutting down waits for every response to end, and a stream of events
   * never would by itself.
   */
  closeWatchers(): void {
    for (const subscription of [...this.#subscriptions]) subscription.close();
  }

  /** How many watchers are on the bus now. */
  get watchers(): number {
    return this.#subscriptions.size;
  }
}
