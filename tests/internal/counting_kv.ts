/**
 * Test helpers: a Deno KV that counts what crosses to its thread — every
 * commit and every read (`get`, `getMany`, `list`), with the keys read — so a
 * test or the bench can tell how many a call makes.
 *
 * @module
 */

/** What a {@linkcode CountingKv} counted since it was last reset. */
export interface KvCount {
  /** Atomic commits, and plain `set`/`delete`/`enqueue` writes. */
  commits: number;
  /** `get`, `getMany` and `list` operations (a `list` counts once, when it first fetches). */
  reads: number;
  /** The keys each read named (a list: its selector), in order. */
  keysRead: string[];
}

/** A KV wrapped to count its crossings, and the count. */
export interface CountingKv {
  /** The wrapped KV, to hand to what is measured. */
  kv: Deno.Kv;
  /** What was counted since the last reset. */
  count: KvCount;
  /** Starts counting afresh. */
  reset(): void;
}

function keyText(key: Deno.KvKey): string {
  return key.map((part) => typeof part === "string" ? part : String(part)).join("/");
}

/**
 * Wraps `kv` to count its commits and reads. The answer's `kv` is a proxy: it
 * is what the code measured must be given, and it behaves as `kv`.
 *
 * @param kv The KV to count.
 */
export function countingKv(kv: Deno.Kv): CountingKv {
  const count: KvCount = { commits: 0, reads: 0, keysRead: [] };
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return countedMethod(target, prop, value, count);
    },
  });
  return {
    kv: wrapped,
    count,
    reset() {
      count.commits = 0;
      count.reads = 0;
      count.keysRead = [];
    },
  };
}

/**
 * Counts the operations of a KV the code measured holds itself (a project's
 * memory, opened by the host): its methods are replaced on the instance
 * until the answer's `restore()`.
 *
 * @param kv The KV to count, as the code measured holds it.
 */
export function countInPlace(kv: Deno.Kv): CountingKv & { restore(): void } {
  const count: KvCount = { commits: 0, reads: 0, keysRead: [] };
  const names = ["get", "getMany", "list", "atomic", "set", "delete", "enqueue"] as const;
  const proto = Object.getPrototypeOf(kv);
  for (const name of names) {
    const method = proto[name] as (...args: unknown[]) => unknown;
    Object.defineProperty(kv, name, {
      configurable: true,
      writable: true,
      value: countedMethod(null, name, method, count),
    });
  }
  return {
    kv,
    count,
    reset() {
      count.commits = 0;
      count.reads = 0;
      count.keysRead = [];
    },
    restore() {
      for (const name of names) delete (kv as unknown as Record<string, unknown>)[name];
    },
  };
}

/**
 * `method` of a KV, counted. Called on `target`, or, when it is null, on
 * what it is called on: a KV behind a proxy of the code's own (one that
 * retries writes, say) calls it on the KV itself.
 */
function countedMethod(
  fixed: Deno.Kv | null,
  prop: string | symbol,
  // deno-lint-ignore ban-types
  method: Function,
  count: KvCount,
) {
  switch (prop) {
    case "get":
      return function (this: Deno.Kv, key: Deno.KvKey, ...rest: unknown[]) {
        count.reads++;
        count.keysRead.push(keyText(key));
        return method.call(fixed ?? this, key, ...rest);
      };
    case "getMany":
      return function (this: Deno.Kv, keys: Deno.KvKey[], ...rest: unknown[]) {
        count.reads++;
        count.keysRead.push(keys.map(keyText).join(" + "));
        return method.call(fixed ?? this, keys, ...rest);
      };
    case "list":
      return function (this: Deno.Kv, selector: Deno.KvListSelector, ...rest: unknown[]) {
        const prefix = (selector as { prefix?: Deno.KvKey }).prefix;
        const text = prefix ? `${keyText(prefix)}/…` : "a range";
        const iterator = method.call(fixed ?? this, selector, ...rest) as Deno.KvListIterator<
          unknown
        >;
        return countedList(iterator, text, count);
      };
    case "atomic":
      return function (this: Deno.Kv) {
        const op = method.call(fixed ?? this) as Deno.AtomicOperation;
        // A proxy, not the operation changed: a retrying proxy may wrap it already.
        const counted: Deno.AtomicOperation = new Proxy(op, {
          get(target, property) {
            const value = Reflect.get(target, property, target);
            if (typeof value !== "function") return value;
            if (property === "commit") {
              return () => {
                count.commits++;
                return target.commit();
              };
            }
            return (...args: unknown[]) => {
              const result = value.apply(target, args);
              return result === target ? counted : result;
            };
          },
        });
        return counted;
      };
    case "set":
    case "delete":
    case "enqueue":
      return function (this: Deno.Kv, ...args: unknown[]) {
        count.commits++;
        return method.call(fixed ?? this, ...args);
      };
    default:
      return fixed ? method.bind(fixed) : method;
  }
}

/**
 * A list's iterator, counting one read when it first fetches: Deno KV
 * fetches `batchSize` (100 by default) entries at a time, and the lists a
 * call makes are shorter than that.
 */
function countedList(
  iterator: Deno.KvListIterator<unknown>,
  text: string,
  count: KvCount,
): Deno.KvListIterator<unknown> {
  let first = true;
  const next = iterator.next.bind(iterator);
  iterator.next = () => {
    if (first) {
      first = false;
      count.reads++;
      count.keysRead.push(text);
    }
    return next();
  };
  return iterator;
}
