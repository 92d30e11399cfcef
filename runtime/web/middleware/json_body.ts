/**
 * Every body the app takes is JSON, and small: a state-changing request must
 * say `Content-Type: application/json` (which a page on another origin cannot
 * send without a preflight the app never grants), and its body is capped
 * before it is read whole.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { changesState } from "./same_origin.ts";

/** Options for {@linkcode jsonBody}. */
export interface JsonBodyOptions {
  /** The largest body, in bytes. */
  maxBytes: number;
  /**
   * Paths whose route reads a body of its own type and under its own cap
   * (the archive upload); each such route checks both itself.
   */
  ownBodies?: readonly string[];
}

/**
 * Refuses a state-changing request whose Content-Type is not
 * `application/json` (415), or whose body is larger than `maxBytes` (413):
 * by its Content-Length at once, or while it is read when it declares none.
 *
 * @param options The largest body, in bytes, and the paths whose routes read their own bodies.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export function jsonBody(options: JsonBodyOptions): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: options.maxBytes,
    onError: (c) =>
      c.json({
        error: `The request body is larger than ${options.maxBytes} bytes, ` +
          `the most this app reads`,
      }, 413),
  });
  return async (c, next) => {
    if (!changesState(c.req.method)) return await next();
    if (options.ownBodies?.includes(c.req.path)) return await next();
    const type = c.req.header("content-type");
    const media = type?.split(";")[0].trim().toLowerCase();
    if (media !== "application/json") {
      return c.json({
        error: `${c.req.method} ${c.req.path} takes a JSON body: send Content-Type: ` +
          `application/json${type === undefined ? "" : `, not ${type}`}`,
      }, 415);
    }
    return await limit(c, next);
  };
}
