/**
 * Finding the work orders to perform: the projects' outboxes are looked at
 * when a handler call that may have ordered some leaves its receipt, when
 * the bus asks for a resync, and for every known project at start. Scans of
 * one project run one after the other, and each reads only the orders after
 * those already begun and settled. Private to the agents folder: the work
 * performer's (`work_performer.ts`), which begins each order's session.
 *
 * @module
 */
import type { EventBus } from "../event_bus.ts";
import { describeError } from "../internal/describe_error.ts";
import { projectsPrefix } from "../projects/mod.ts";
import { listWorkOrders, type WorkOrder } from "../work/mod.ts";
import { sessionsThatExist } from "./session_store.ts";

/**
 * How long after an order's key is made its call may still be committing it
 * (a handler call's longest run, with room to spare). A scan of a project's
 * outbox moves past the orders older than this that have their sessions, so
 * that the next reads only what came after them.
 */
const ORDERS_SETTLE_MS = 10 * 60_000;

/** What an {@linkcode OutboxScanner} reads, hears and hands on. */
export interface OutboxScannerOptions {
  /** The installation's KV: known projects, session pointers. */
  kv: Deno.Kv;
  /** The host's bus: receipts are heard on it. */
  events: EventBus;
  /** A project's memory, where its outbox is. */
  projectMemory: (project: string) => Promise<Deno.Kv>;
  /** The host's clock, in ms. */
  now: () => number;
  /** Where notices go (a project whose outbox could not be read). */
  log: (line: string) => void;
  /** True once Sync is stopping: a scan begins nothing more. */
  stopping: () => boolean;
  /**
   * Begins the session that performs an order that has no pointer yet.
   * Resolves true when the order has its session now, begun here or elsewhere.
   */
  perform: (order: WorkOrder) => Promise<boolean>;
}

/** Looks in the projects' outboxes for orders to perform; one per work performer. */
export class OutboxScanner {
  #kv: Deno.Kv;
  #events: EventBus;
  #projectMemory: (project: string) => Promise<Deno.Kv>;
  #now: () => number;
  #log: (line: string) => void;
  #stopping: () => boolean;
  #perform: (order: WorkOrder) => Promise<boolean>;
  #scans = new Map<string, Promise<void>>();
  /**
   * Per project, the key of an order such that it and every order before it
   * has its session (or is not one a session performs), and is older than
   * {@linkcode ORDERS_SETTLE_MS}: scans list only the orders after it.
   */
  #scanned = new Map<string, string>();
  #listening: Promise<void> | null = null;
  #subscription: ReturnType<EventBus["subscribe"]> | null = null;

  /**
   * A scanner over an installation; it hears nothing before {@linkcode OutboxScanner.start}.
   *
   * @param options The installation, the bus, project memories, and how an order is performed.
   */
  constructor(options: OutboxScannerOptions) {
    this.#kv = options.kv;
    this.#events = options.events;
    this.#projectMemory = options.projectMemory;
    this.#now = options.now;
    this.#log = options.log;
    this.#stopping = options.stopping;
    this.#perform = options.perform;
  }

  /** Listens for receipts, and scans every known project's outbox. */
  async start(): Promise<void> {
    // Only receipts are listened for (and `resync`, which comes whatever the kinds): the
    // performer's own transcript facts, large and many, are not held for it.
    this.#subscription = this.#events.subscribe({ types: new Set(["receipt"]) });
    this.#listening = this.#listen();
    await this.#scanAll();
  }

  /** Stops listening; resolves once the scans under way are done. */
  async stop(): Promise<void> {
    this.#subscription?.close();
    await this.#listening;
    await Promise.allSettled(this.#scans.values());
  }

  /**
   * Performs the orders in a project's outbox that nothing began yet. Scans
   * of one project run one after the other.
   *
   * @param project The project's resolved folder.
   * @returns When the scan is done (the sessions it began go on).
   */
  scan(project: string): Promise<void> {
    const before = this.#scans.get(project) ?? Promise.resolve();
    const next = before.then(() => this.#scan(project)).catch((error) => {
      this.#log(
        `Could not look for work ordered in ${project}: ${describeError(error).message}`,
      );
    });
    this.#scans.set(project, next);
    next.then(() => {
      if (this.#scans.get(project) === next) this.#scans.delete(project);
    });
    return next;
  }

  async #scanAll(): Promise<void> {
    for await (const entry of this.#kv.list<{ path: string }>({ prefix: projectsPrefix() })) {
      this.scan(entry.value.path);
    }
  }

  /**
   * Listens for receipts of calls that ordered work in their project. Only
   * those: the outbox keeps every order made, so looking at it after every
   * call would cost each call more the longer a project has had work.
   */
  async #listen(): Promise<void> {
    const subscription = this.#subscription!;
    while (!subscription.closed) {
      const event = await subscription.next(60_000);
      if (event === null) continue;
      if (event.type === "receipt" && event.workOrdered) this.scan(event.project);
      else if (event.type === "resync") await this.#scanAll();
    }
  }

  async #scan(project: string): Promise<void> {
    if (this.#stopping()) return;
    const memory = await this.#projectMemory(project);
    const after = this.#scanned.get(project);
    const orders = await listWorkOrders(memory, after === undefined ? {} : { after });
    const begun = await sessionsThatExist(this.#kv, project, orders.map((o) => o.key));
    const settled = this.#now() - ORDERS_SETTLE_MS;
    let passed = after;
    let passing = true;
    for (const order of orders) {
      if (this.#stopping()) return;
      let done = begun.has(order.key) || order.kind !== "agent.session";
      if (!done) done = await this.#perform(order);
      // Passed over by later scans only while every order before it is done and settled.
      passing &&= done && Date.parse(order.orderedAt) < settled;
      if (passing) passed = order.key;
    }
    if (passed !== undefined) this.#scanned.set(project, passed);
  }
}
