/**
 * A Deno KV that retries a write refused with "database is locked": SQLite's
 * answer when another program holds the database file. SQLite refuses such a
 * write whole, so trying it again cannot commit it twice; only the owner of
 * an installation opens its databases, so this covers what Sync does not
 * control, and a locked database is never reported as a failed call.
 *
 * @module
 */

/** Options for {@linkcode retryWhenLocked}. */
export interface RetryWhenLockedOptions {
  /** Tries in all, the first included (`LOCK_RETRY` in `limits.ts` says how many). */
  attempts: number;
  /** Wait before the second try; each later wait is twice the one before. */
  firstDelayMs: number;
  /** Told of each refusal before the wait that follows it (tests free the lock here). */
  onLocked?: (attempt: number) => void;
  /**
   * What a write's last error becomes, so a full or read-only disk is told in
   * words that name the file (`writingFailure`, which may look at the disk
   * first, so it may answer a promise); thrown as it is when absent.
   */
  failure?: (error: unknown) => unknown | Promise<unknown>;
}

/** The KV writes retried; reads are not refused while a writer holds the file. */
const WRITES = new Set<PropertyKey>(["set", "delete", "enqueue"]);

/** True for SQLite's refusal of a write while another connection holds the file. */
export function isLockedError(error: unknown): boolean {
  return error instanceof Error && /database (table )?is locked|SQLITE_BUSY/i.test(error.message);
}

/**
 * Wraps `kv` so that its writes (`set`, `delete`, `enqueue` and an atomic
 * operation's `commit`) are retried with a doubling wait while the database
 * is locked, then fail with the last refusal (as `options.failure` tells it).
 *
 * @param kv The KV to wrap; closing the wrapper closes it.
 * @param options How often to retry, and who is told.
 */
export function retryWhenLocked(kv: Deno.Kv, options: RetryWhenLockedOptions): Deno.Kv {
  const retry = options;
  const again = async <T>(write: () => Promise<T>): Promise<T> => {
    let delay = retry.firstDelayMs;
    for (let attempt = 1;; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (!isLockedError(error) || attempt >= retry.attempts) {
          throw options.failure ? await options.failure(error) : error;
        }
        options.onLocked?.(attempt);
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay *= 2;
      }
    }
  };
  return new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "atomic") return () => retryingAtomic(target.atomic(), again);
      if (WRITES.has(property)) {
        return (...args: unknown[]) => again(() => value.apply(target, args));
      }
      return value.bind(target);
    },
  });
}

/** An atomic operation whose `commit` is retried; its other methods chain through the wrapper. */
function retryingAtomic(
  operation: Deno.AtomicOperation,
  again: <T>(write: () => Promise<T>) => Promise<T>,
): Deno.AtomicOperation {
  const wrapper: Deno.AtomicOperation = new Proxy(operation, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "commit") return () => again(() => target.commit());
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result === target ? wrapper : result;
      };
    },
  });
  return wrapper;
}
