/**
 * The order in which the stdio bridge sends what a client writes on to the
 * owner, and how much of it it keeps meanwhile.
 *
 * Messages go in the order they were read. Until the serve has answered the
 * client's first `initialize` nothing but that `initialize` goes (the session
 * exists only from then on). What comes before any `initialize` is held up to
 * a bound, past which the bridge refuses it: the bridge must read on to find
 * the `initialize`. Once one has come, at most a few messages are at the
 * owner at once — a request until it is answered — and the rest wait their
 * turn; when too many wait, the bridge stops reading stdin until half of them
 * have gone, so a client writing faster than the serve answers (or before it
 * has answered `initialize`) is slowed, never refused, and the bridge's
 * memory does not grow with what it writes.
 *
 * @module
 */
import type { BridgeLimits } from "./bridge_limits.ts";

/** How many messages are at the owner and how many wait, as a test watches it. */
export interface BridgeQueueState {
  /** Messages sent to the owner and not yet answered (a request) or taken (anything else). */
  inFlight: number;
  /** Messages read from stdin and not yet sent. */
  waiting: number;
}

/** Options for {@linkcode BridgeQueue}, whose messages are `M` (JSON-RPC messages as read). */
export interface BridgeQueueOptions<M extends object> {
  /** How much is held, sent at once and kept waiting. */
  limits: BridgeLimits;
  /**
   * Sends one message to the owner; settles once the owner has taken it. A
   * request's answer, or the bridge's answer in its place, is reported with
   * {@linkcode BridgeQueue.answered}.
   */
  send: (message: M) => Promise<void>;
  /** Stops reading stdin. */
  pause: () => void;
  /** Reads stdin again. */
  resume: () => void;
  /** Told each time the counts change. */
  observe?: (state: BridgeQueueState) => void;
}

/** A message waiting its turn, and its size. */
interface Waiting<M> {
  message: M;
  bytes: number;
}

/** No `initialize` has come yet: nothing goes until one has and is answered. */
const NONE_YET = Symbol("no initialize yet");

/** A JSON-RPC id, when the message is a request. */
function requestId(message: object): string | number | undefined {
  return Object.hasOwn(message, "method") && Object.hasOwn(message, "id")
    ? (message as { id: string | number }).id
    : undefined;
}

/** The size of a message as written, in bytes. */
export function messageBytes(message: object): number {
  return new TextEncoder().encode(JSON.stringify(message)).length;
}

/** The messages a bridge has read and not yet sent on, and those at the owner. */
export class BridgeQueue<M extends object> {
  #options: BridgeQueueOptions<M>;
  #waiting: Waiting<M>[] = [];
  #waitingBytes = 0;
  #inFlight = 0;
  /** Requests at the owner by id, counted (a client may reuse an id). */
  #requests = new Map<string | number, number>();
  /** What nothing passes until it is answered: the `initialize` sent last, or none seen yet. */
  #gate: string | number | typeof NONE_YET | null = NONE_YET;
  #opened = false;
  #paused = false;

  /** A queue with nothing in it, waiting for an `initialize`. */
  constructor(options: BridgeQueueOptions<M>) {
    this.#options = options;
  }

  /** True once the first `initialize` was answered (or answered for): the session exists. */
  get opened(): boolean {
    return this.#opened;
  }

  /**
   * True when a message of `bytes` may still be held for an `initialize` not
   * yet come; past {@linkcode BridgeLimits.maxHeld} or `maxHeldBytes` it may not.
   */
  holds(bytes: number): boolean {
    const { maxHeld, maxHeldBytes } = this.#options.limits;
    return this.#waiting.length < maxHeld && this.#waitingBytes + bytes <= maxHeldBytes;
  }

  /** Sends the client's first `initialize` ahead of what was held for it. */
  sendFirst(message: M): void {
    this.#dispatch(message);
  }

  /** Sends a message in its turn, after those read before it. */
  push(message: M, bytes: number): void {
    // A client's answer to what the owner asked is awaited there: it takes no turn.
    if (this.#opened && !Object.hasOwn(message, "method")) {
      this.#dispatch(message);
      return;
    }
    this.#waiting.push({ message, bytes });
    this.#waitingBytes += bytes;
    this.#pump();
    const { maxWaiting, maxWaitingBytes } = this.#options.limits;
    const full = this.#waiting.length >= maxWaiting || this.#waitingBytes >= maxWaitingBytes;
    // Before any initialize the bridge reads on (and refuses past the bound) to find it.
    if (this.#gate !== NONE_YET && full && !this.#paused) {
      this.#paused = true;
      this.#options.pause();
    }
  }

  /**
   * A request's answer was written to the client, by the owner or by the
   * bridge in its place: its turn is over.
   */
  answered(id: unknown): void {
    if (typeof id !== "string" && typeof id !== "number") return;
    const count = this.#requests.get(id);
    if (count === undefined) return;
    if (count > 1) this.#requests.set(id, count - 1);
    else this.#requests.delete(id);
    this.#inFlight--;
    this.#open(id);
    this.#pump();
  }

  /** Takes what was held when no `initialize` will come (stdin ended first). */
  takeHeld(): M[] {
    const held = this.#waiting.splice(0).map(({ message }) => message);
    this.#waitingBytes = 0;
    this.#observe();
    return held;
  }

  #dispatch(message: M): void {
    const id = requestId(message);
    const isInitialize = (message as { method?: unknown }).method === "initialize";
    this.#inFlight++;
    if (id !== undefined) this.#requests.set(id, (this.#requests.get(id) ?? 0) + 1);
    if (isInitialize && id !== undefined) this.#gate = id;
    this.#observe();
    void this.#options.send(message).finally(() => {
      // What follows an `initialize` goes once the owner took it: the SDK's
      // server has set the session up by then, even if the answer streams later.
      if (isInitialize && id !== undefined) this.#open(id);
      if (id === undefined) this.#inFlight--;
      this.#pump();
    });
  }

  #open(id: string | number): void {
    if (this.#gate !== id) return;
    this.#gate = null;
    this.#opened = true;
  }

  #pump(): void {
    const { maxInFlight, maxWaiting, maxWaitingBytes } = this.#options.limits;
    while (this.#gate === null && this.#waiting.length > 0 && this.#inFlight < maxInFlight) {
      const { message, bytes } = this.#waiting.shift()!;
      this.#waitingBytes -= bytes;
      this.#dispatch(message);
    }
    const drained = this.#waiting.length <= maxWaiting / 2 &&
      this.#waitingBytes <= maxWaitingBytes / 2;
    if (this.#paused && drained) {
      this.#paused = false;
      this.#options.resume();
    }
    this.#observe();
  }

  #observe(): void {
    this.#options.observe?.({ inFlight: this.#inFlight, waiting: this.#waiting.length });
  }
}
