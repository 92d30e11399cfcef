/**
 * Which way a request came in: over the TCP port, where the browser reaches
 * the app, or over the owner's socket in the installation folder, where only
 * this person's processes reach it (`runtime/projects/owner_socket.ts`). The
 * server says which, by what it hands the app beside the request (Hono's
 * `env`), never by anything a request carries.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";

/** What the socket's server hands the app with each request it received. */
export const OVER_OWNER_SOCKET: Readonly<{ overOwnerSocket: true }> = Object.freeze({
  overOwnerSocket: true,
});

/**
 * True when the request came over the owner's socket.
 *
 * @param c The request's context.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export function cameOverOwnerSocket(c: Context): boolean {
  return (c.env as Partial<typeof OVER_OWNER_SOCKET> | undefined)?.overOwnerSocket === true;
}

/**
 * Refuses (404) a request that came over the TCP port: the route is the
 * CLI's, reached only over the owner's socket.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export function ownerSocketOnly(): MiddlewareHandler {
  return async (c, next) => {
    if (!cameOverOwnerSocket(c)) {
      return c.json({
        error: `${c.req.path} is answered only on the socket in the installation folder ` +
          `(owner.sock), for the CLI; the app's port does not take it`,
      }, 404);
    }
    await next();
  };
}
