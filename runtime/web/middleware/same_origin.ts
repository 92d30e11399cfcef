/**
 * A request that changes something must come from the app's own page: its
 * Origin, when it has one, is exactly the app's (scheme, host and port), and
 * a browser's `Sec-Fetch-Site` may not say another site sent it.
 *
 * Hono's `csrf` is not used: it looks at the Origin only for the content
 * types a form can send, so a page on another loopback port posting JSON
 * would pass it; here every state-changing request is held to the origin.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { ownOrigin } from "./loopback_host.ts";

/** Methods that only read; every other method changes something. */
const SAFE_METHODS = ["GET", "HEAD", "OPTIONS"];

/**
 * True when the method may change something (anything but GET, HEAD, OPTIONS).
 *
 * @param method The request's method.
 */
export function changesState(method: string): boolean {
  return !SAFE_METHODS.includes(method.toUpperCase());
}

/**
 * Refuses (403) a state-changing request whose Origin is not exactly the
 * app's own, or that a browser marks as sent from another site. A request
 * with no Origin passes here; the token guard then wants the Bearer token.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export function sameOrigin(): MiddlewareHandler {
  return async (c, next) => {
    if (!changesState(c.req.method)) return await next();
    const origin = c.req.header("origin");
    const own = ownOrigin(c);
    if (origin !== undefined && origin !== own) {
      return c.json({ error: `Requests from ${origin} may not change anything here` }, 403);
    }
    const site = c.req.header("sec-fetch-site");
    if (site !== undefined && site !== "same-origin" && site !== "none") {
      return c.json(
        {
          error: `Requests a browser sent from another site (${site}) may not change anything here`,
        },
        403,
      );
    }
    await next();
  };
}
