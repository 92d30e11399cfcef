/**
 * A Deno KV whose atomic writes, made while another is being committed, are
 * committed together in one SQLite transaction: group commit.
 *
 * Deno KV on disk runs every commit on the database's one SQLite thread, one
 * at a time, and each waits for its own `fsync`. Calls made at once (four
 * callers, the clock beside a person's call) then wait on each other's
 * `fsync` rather than on the CPU. Here a commit made while none is under way
 * goes at once, alone, as before; commits made meanwhile wait for it as they
 * would have in SQLite's queue, then go as one transaction and one `fsync`.
 *
 * Committing operations together gives each the outcome it would have had
 * alone, in the order they were made, because only operations that cannot
 * see each other are put together: no operation writes a key another checks
 * or writes, except that several may add to one counter (`sum`, which gives
 * the same total in any order), and checks read only what was stored before
 * them. A group stops at the first operation that would break this or Deno
 * KV's limits (checks, mutations), so commits still go in the order they were
 * made. A group whose commit is refused (a check failed) or throws (a size
 * past Deno KV's limits) is committed again one operation at a time, so that
 * each is told its own outcome; a refused or failed transaction wrote nothing.
 *
 * @module
 */

/** Checks one atomic write may hold (Deno KV's limit). */
const MAX_CHECKS = 100;

/** Mutations and enqueues one atomic write may hold (Deno KV's limit). */
const MAX_MUTATIONS = 1000;

/** One `enqueue` of an operation, as it was made. */
interface Enqueue {
  value: unknown;
  options?: Parameters<Deno.AtomicOperation["enqueue"]>[1];
}

/** What an operation holds, as it was made: its checks, mutations and enqueues. */
interface Recorded {
  checks: Deno.AtomicCheck[];
  mutations: Deno.KvMutation[];
  enqueues: Enqueue[];
}

/** An operation waiting to be committed, with whom to tell its outcome. */
interface Waiting {
  recorded: Recorded;
  resolve: (result: Deno.KvCommitResult | Deno.KvCommitError) => void;
  reject: (error: unknown) => void;
}

/** How an operation touches a key. */
type Touch = "check" | "sum" | "write";

/**
 * A key as a string that is the same for equal keys; keys that differ may
 * share one (0 and -0), which only keeps their operations apart.
 */
function keyName(key: Deno.KvKey): string {
  return key.map((part) => {
    if (typeof part === "string") return `s${JSON.stringify(part)}`;
    if (typeof part === "number") return `n${String(part)}`;
    if (typeof part === "bigint") return `b${part}`;
    if (typeof part === "boolean") return `t${part}`;
    if (part instanceof Uint8Array) return `u${Array.from(part).join(",")}`;
    return `?${String(part)}`;
  }).join("\u0000");
}

/** The keys an operation touches, and how. */
function touches(recorded: Recorded): Map<string, Touch> {
  const touched = new Map<string, Touch>();
  const add = (key: Deno.KvKey, touch: Touch) => {
    const name = keyName(key);
    const before = touched.get(name);
    touched.set(name, before === undefined || before === touch ? touch : "write");
  };
  for (const check of recorded.checks) add(check.key, "check");
  for (const mutation of recorded.mutations) {
    add(mutation.key, mutation.type === "sum" ? "sum" : "write");
  }
  return touched;
}

/** A group of operations to commit as one, and the keys they touch so far. */
class Group {
  readonly members: Waiting[] = [];
  #touched = new Map<string, Touch>();
  #checks = 0;
  #mutations = 0;
  /** A member whose keys could not be read goes alone: Deno KV tells it why. */
  #closed = false;

  /** Adds `waiting` when it cannot see the members nor pass the limits; says whether it did. */
  admit(waiting: Waiting): boolean {
    if (this.#closed) return false;
    const { checks, mutations, enqueues } = waiting.recorded;
    if (this.members.length === 0) {
      // The keys of a first member are read only once a second one asks to
      // join: a commit that goes alone, as most do, never names its keys.
      this.#add(waiting);
      return true;
    }
    if (
      this.#checks + checks.length > MAX_CHECKS ||
      this.#mutations + mutations.length + enqueues.length > MAX_MUTATIONS
    ) return false;
    if (this.members.length === 1) {
      try {
        this.#touch(touches(this.members[0].recorded));
      } catch {
        this.#closed = true;
        return false;
      }
    }
    let own: Map<string, Touch>;
    try {
      own = touches(waiting.recorded);
    } catch {
      return false;
    }
    for (const [name, touch] of own) {
      const other = this.#touched.get(name);
      // Checks beside checks, and sums beside sums, cannot see each other.
      if (other !== undefined && (other !== touch || touch === "write")) return false;
    }
    this.#touch(own);
    this.#add(waiting);
    return true;
  }

  #touch(own: Map<string, Touch>): void {
    for (const [name, touch] of own) {
      const other = this.#touched.get(name);
      this.#touched.set(name, other === undefined || other === touch ? touch : "write");
    }
  }

  #add(waiting: Waiting): void {
    const { checks, mutations, enqueues } = waiting.recorded;
    this.#checks += checks.length;
    this.#mutations += mutations.length + enqueues.length;
    this.members.push(waiting);
  }
}

/** Adds what `recorded` holds to a real atomic operation. */
function replay(op: Deno.AtomicOperation, recorded: Recorded): void {
  if (recorded.checks.length) op.check(...recorded.checks);
  if (recorded.mutations.length) op.mutate(...recorded.mutations);
  for (const { value, options } of recorded.enqueues) op.enqueue(value, options);
}

/** The commits of one KV: at most one under way, the rest waiting for it. */
class CommitQueue {
  #kv: Deno.Kv;
  #waiting: Waiting[] = [];
  #committing = false;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  commit(recorded: Recorded): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ recorded, resolve, reject });
      if (!this.#committing) this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#committing = true;
    try {
      while (this.#waiting.length > 0) {
        const group = new Group();
        let taken = 0;
        while (taken < this.#waiting.length && group.admit(this.#waiting[taken])) taken++;
        this.#waiting.splice(0, taken);
        await this.#commitGroup(group.members);
      }
    } finally {
      this.#committing = false;
    }
  }

  async #commitGroup(members: Waiting[]): Promise<void> {
    if (members.length > 1) {
      try {
        const op = this.#kv.atomic();
        for (const member of members) replay(op, member.recorded);
        const result = await op.commit();
        if (result.ok) {
          for (const member of members) member.resolve(result);
          return;
        }
      } catch {
        // Refused whole before anything was written: each is committed alone below.
      }
    }
    // One alone, or a group refused: each as it would have gone alone, in order.
    for (const member of members) {
      try {
        const op = this.#kv.atomic();
        replay(op, member.recorded);
        member.resolve(await op.commit());
      } catch (error) {
        member.reject(error);
      }
    }
  }
}

/** An atomic operation that records what it is given and commits through a {@linkcode CommitQueue}. */
class GroupedOperation implements Deno.AtomicOperation {
  #queue: CommitQueue;
  #recorded: Recorded = { checks: [], mutations: [], enqueues: [] };

  constructor(queue: CommitQueue) {
    this.#queue = queue;
  }

  check(...checks: Deno.AtomicCheck[]): this {
    for (const { key, versionstamp } of checks) this.#recorded.checks.push({ key, versionstamp });
    return this;
  }

  mutate(...mutations: Deno.KvMutation[]): this {
    this.#recorded.mutations.push(...mutations);
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    return this.mutate({ type: "sum", key, value: new Deno.KvU64(n) });
  }

  min(key: Deno.KvKey, n: bigint): this {
    return this.mutate({ type: "min", key, value: new Deno.KvU64(n) });
  }

  max(key: Deno.KvKey, n: bigint): this {
    return this.mutate({ type: "max", key, value: new Deno.KvU64(n) });
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    return this.mutate({
      type: "set",
      key,
      value,
      ...(options?.expireIn !== undefined ? { expireIn: options.expireIn } : {}),
    });
  }

  delete(key: Deno.KvKey): this {
    return this.mutate({ type: "delete", key });
  }

  enqueue(value: unknown, options?: Enqueue["options"]): this {
    this.#recorded.enqueues.push(options === undefined ? { value } : { value, options });
    return this;
  }

  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return this.#queue.commit(this.#recorded);
  }
}

/**
 * Wraps `kv` so that atomic writes made while another is being committed
 * are committed together with the others waiting, each with the outcome it
 * would have had alone (see the module's documentation). Everything else
 * goes to `kv` as it is; closing the wrapper closes it.
 *
 * @param kv The KV to wrap.
 * @returns The KV whose `atomic()` commits in groups.
 */
export function groupCommits(kv: Deno.Kv): Deno.Kv {
  const queue = new CommitQueue(kv);
  return new Proxy(kv, {
    get(target, property) {
      if (property === "atomic") return () => new GroupedOperation(queue);
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
