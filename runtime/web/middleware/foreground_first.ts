/**
 * A person's API request goes before background work: while it is being
 * answered (its first 100 ms at most), the host calls of devices' task steps
 * wait (`runtime/host/foreground.ts`), so a page stays quick during a long
 * sync.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { Foreground } from "../../host/mod.ts";

/**
 * Marks each request it sees as a person's, in flight until answered.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 *
 * @param foreground The host's requests in flight.
 */
export function foregroundFirst(foreground: Foreground): MiddlewareHandler {
  return async (_c, next) => {
    const leave = foreground.enter();
    try {
      await next();
    } finally {
      leave();
    }
  };
}
