/**
 * The transaction of one attempt (`call.ts`): the project's memory, the
 * generation the call runs under and the kinds it may read, made ready for
 * the first host function (or beside the isolate, when the module imports
 * the service API); the host functions run in it, staging writes and work
 * orders; and, once the handler answers, its commit with the outbox.
 *
 * @module
 */
import type { CallHooks, HostFunctionName } from "../isolate/mod.ts";
import {
  generationBumpsThrough,
  MemoryAccess,
  MemoryTransaction,
  readGeneration,
  type RecordChange,
} from "../memory/mod.ts";
import { type LoadedPackage, readableKinds, type ServingEntries } from "../packages/mod.ts";
import type { AttemptOf, CallOptions, CallResources } from "./call_options.ts";
import { findHostFunction } from "./function_table.ts";
import { hostDispatch } from "./host_dispatch.ts";
import type { HostFunction, HostFunctionContext } from "./host_function.ts";

/** What an attempt resolved: the package that serves, and what it was resolved from. */
export interface Serving {
  /** The artefact that serves the package in the project. */
  pkg: LoadedPackage;
  /** The ids the project lists. */
  declaredIds: readonly string[];
  /** Each listed id's approval and ref. */
  entries: Map<string, ServingEntries>;
}

/** The transaction of one attempt; see the module's documentation. */
export class CallTransaction {
  #resources: CallResources;
  #of: AttemptOf;
  #serving: Serving;
  #options: CallOptions;
  #startedAt: number;
  #receiptId: string;
  /** The generation kept from the last call may be used rather than read; not once the claim begins. */
  #keptGeneration: boolean;
  /** The project's memory, once opened. */
  #memory: Deno.Kv | undefined;
  /** The bumps of the generation made through the memory in this process as the call started. */
  #bumps = 0;
  /** The project's memory and the readable kinds, once asked for. */
  #preparing: Promise<MemoryTransaction> | null = null;
  /** The generation the call runs under, once asked for; the transaction waits for it. */
  #generation: Promise<unknown> | null = null;
  #transaction: MemoryTransaction | undefined;
  #dispatch: Pick<CallHooks, "host" | "answerLimit"> | undefined;
  /** The handler called a host function, which waited for the transaction. */
  #askedHost = false;
  /** A host function that stages writes was called: the commit waits for the claim. */
  #staging = false;
  /** The work the call ordered; committed into the project's outbox when the call ends `ok`. */
  readonly ordered: HostFunctionContext["orders"] = [];

  /**
   * The transaction of an attempt, not yet made ready.
   *
   * @param resources The installation, the project memories and the host functions' effects.
   * @param of The project, package and handler.
   * @param serving What serves, and what it was resolved from.
   * @param options Why and for whom the call is made, and the generation the caller saw.
   * @param started When the attempt started, in ms, its receipt's id, and
   *   whether the generation kept from the last call may be used (the
   *   attempt is not one made again).
   */
  constructor(
    resources: CallResources,
    of: AttemptOf,
    serving: Serving,
    options: CallOptions,
    started: { at: number; receiptId: string; keptGeneration: boolean },
  ) {
    this.#resources = resources;
    this.#of = of;
    this.#serving = serving;
    this.#options = options;
    this.#startedAt = started.at;
    this.#receiptId = started.receiptId;
    this.#keptGeneration = started.keptGeneration;
  }

  /** A host function that stages writes was called. */
  get staging(): boolean {
    return this.#staging;
  }

  /** The claim began: a generation kept from the last call is proven before it is written. */
  #provenFirst = false;

  /**
   * Proves the generation kept from the last call before the claim is
   * written, so that a call found to run under one that moved on is made
   * again before anything of it counts; once the claim began, the
   * generation is read rather than kept.
   *
   * @throws {SupersededError} when it moved on after the call read memory.
   */
  async beforeClaim(): Promise<void> {
    this.#provenFirst = true;
    const transaction = await this.#preparing?.catch(() => undefined);
    await transaction?.proveGeneration();
  }

  /**
   * The generation kept from an earlier call was found moved on after the
   * call read: it commits nothing, and is made again from a fresh read while
   * it has not counted.
   */
  get generationMoved(): boolean {
    return this.#transaction?.generationMoved === true;
  }

  /**
   * Makes the transaction ready, once: the project's memory, the generation
   * (the one the caller gave, the one kept from the last call — proven by
   * the first write, see `kept_generations.ts` — or read now) and the kinds
   * the package may read. The handler reaches none of them except through host functions,
   * which wait for this; what they read in memory is read after the
   * generation and answers once it is read, so the call starts, as far as
   * anything it can touch is concerned, once the generation is read.
   */
  prepare(): Promise<MemoryTransaction> {
    return this.#preparing ??= this.#prepared();
  }

  async #prepared(): Promise<MemoryTransaction> {
    const resources = this.#resources;
    const { project, id, handler } = this.#of;
    const { pkg, declaredIds, entries } = this.#serving;
    const options = this.#options;
    const memory = await resources.projectMemory(project);
    this.#memory = memory;
    const bumps = generationBumpsThrough(memory, id);
    this.#bumps = bumps;
    const kept = options.generation || !this.#keptGeneration || this.#provenFirst
      ? undefined
      : resources.keptGenerations?.get(memory, project, id, bumps);
    // Asked for first and not waited for here: the host function's own read
    // is made behind it at once, and answers once it is read.
    const generation = options.generation ?? kept ?? readGeneration(memory, id);
    this.#generation = Promise.resolve(generation);
    // Told by the transaction's reads and commit, or by failureOf; never unhandled.
    this.#generation.catch(() => {});
    if (generation instanceof Promise) {
      generation.then(
        (read) => resources.keptGenerations?.keep(memory, project, id, read, bumps),
        () => {},
      );
    }
    const kinds = await readableKinds(resources.kv, project, pkg, declaredIds, entries);
    const transaction = new MemoryTransaction(memory, {
      packageId: id,
      project,
      generation,
      // A task step's writes stand only while its device's account is the one it read.
      accountEpoch: options.account?.epoch,
      generationKept: kept !== undefined,
      bumpedSince: () => generationBumpsThrough(memory, id) !== bumps,
      // Each revision the call writes keeps the receipt's id.
      receiptId: this.#receiptId,
      now: () => new Date(resources.now()),
      cursors: resources.cursors,
    });
    this.#transaction = transaction;
    this.#dispatch = hostDispatch({
      package: pkg,
      project,
      handler,
      call: { occasion: options.occasion, source: options.source, startedAt: this.#startedAt },
      transaction,
      access: new MemoryAccess(id, kinds),
      orders: this.ordered,
      kv: resources.kv,
      now: resources.now,
      limits: resources.limits,
      fetch: resources.fetch,
      resolve: resources.resolve,
      workState: resources.workState,
      agents: resources.agents,
      account: options.account,
      parsers: resources.parsers,
      // A device's task step is background work: a person's request goes first.
      background: options.account === undefined ? undefined : resources.foreground,
    });
    return transaction;
  }

  /**
   * The handler called `fn`: what it reaches, for the claim to be begun or
   * waited for before it runs. A function that stages a write marks the
   * transaction as one whose commit waits for the claim.
   */
  asked(fn: HostFunctionName): HostFunction["reach"] {
    const reach = reachOf(fn);
    this.#askedHost = true;
    if (reach === "stages") this.#staging = true;
    return reach;
  }

  /**
   * Runs a host function in the transaction, once it is ready. A read ahead
   * runs so too, but is not the handler asking: it makes the memory's
   * failure to open no failure of the call.
   */
  async run(fn: HostFunctionName, args: unknown, signal: AbortSignal): Promise<unknown> {
    await this.prepare();
    return await this.#dispatch!.host(fn, args, signal);
  }

  /** The longest answer `fn` may cross back as; asked only once a host function answered. */
  answerLimit(fn: HostFunctionName): number | undefined {
    return this.#dispatch?.answerLimit?.(fn);
  }

  /**
   * Commits the records and the orders (into the project's outbox) in one
   * atomic write, when the transaction staged writes or runs under a
   * generation its caller gave (its commit then reads the generation to
   * check it); a transaction that staged nothing has nothing to fence and is
   * ended unused.
   *
   * @returns The records the commit wrote or removed; empty when it wrote nothing.
   * @throws {SupersededError} when the generation moved on; `FencedError` when the
   *   account epoch of a task step moved on; what the commit refuses.
   */
  async commit(): Promise<readonly RecordChange[]> {
    if (this.#staging || this.#options.generation) {
      const transaction = await this.prepare();
      const { changes } = await transaction.commit();
      this.#keepProven(transaction);
      return changes;
    }
    // A memory read beside the isolate that the handler never used does not fail it.
    if (this.#preparing) await this.#preparing.then((unused) => unused.discard(), () => {});
    return [];
  }

  /** Keeps the generation a write proved for the next call; a caller's own is not kept. */
  #keepProven(transaction: MemoryTransaction): void {
    const proven = transaction.provenGeneration;
    if (proven && !this.#options.generation && this.#memory) {
      const { project, id } = this.#of;
      this.#resources.keptGenerations?.keep(this.#memory, project, id, proven, this.#bumps);
    }
  }

  /**
   * The failure to tell for a call that failed with `failure`: when the
   * project's memory could not be read for a host function, that is why the
   * call failed, not the error its handler was handed for it.
   */
  async failureOf(failure: unknown): Promise<unknown> {
    // Whatever the handler made of the refusal, the call was superseded.
    const superseded = this.#transaction?.supersededBy;
    if (superseded) return superseded;
    if (this.#preparing && this.#askedHost) {
      await this.#preparing.catch((unready) => failure = unready);
      await this.#generation?.catch((unready) => failure = unready);
    }
    return failure;
  }

  /** Throws away whatever the transaction staged. */
  discard(): void {
    if (this.generationMoved) {
      this.#resources.keptGenerations?.forget(this.#of.project, this.#of.id);
    } else if (this.#transaction) this.#keepProven(this.#transaction);
    try {
      this.#transaction?.discard();
    } catch {
      // A commit that was refused already finished the transaction; its error is the one to tell.
    }
  }
}

/** What a host function reaches, for when the call must hold its claim; an unknown name acts. */
function reachOf(fn: HostFunctionName): HostFunction["reach"] {
  try {
    return findHostFunction(fn).reach;
  } catch {
    // The table refuses it when called; until then it is taken at its worst.
    return "acts";
  }
}
