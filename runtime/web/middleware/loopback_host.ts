/**
 * The first guard: a request must be addressed to this app by its loopback
 * name and its own port, so a page on a name that resolves to 127.0.0.1 (DNS
 * rebinding) is refused, and the app's own origin can be read off the Host.
 * A request over the owner's socket is not held to it: no browser reaches a
 * Unix socket, and the folder it is in admits only this person.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { cameOverOwnerSocket } from "./owner_socket_only.ts";

/** The names the app answers to; it listens on 127.0.0.1 only, so never `[::1]`. */
const LOOPBACK_NAMES = ["127.0.0.1", "localhost"];

/** The Host a request was addressed to, as the client sent it. */
function hostOf(c: Context): string {
  return c.req.header("host") ?? new URL(c.req.url).host;
}

/**
 * The app's own origin for this request: `http://` and the Host it was sent
 * to, which {@linkcode loopbackHost} has checked is a loopback name and the
 * app's port.
 *
 * @param c The request's context.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export function ownOrigin(c: Context): string {
  return `http://${hostOf(c).toLowerCase()}`;
}

/**
 * Refuses (403) a request over TCP whose Host is not `127.0.0.1:<port>` or
 * `localhost:<port>`.
 *
 * @param options The port the app is served on.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export function loopbackHost(options: { port: number }): MiddlewareHandler {
  return async (c, next) => {
    if (cameOverOwnerSocket(c)) return await next();
    const host = hostOf(c);
    let url: URL | undefined;
    try {
      url = new URL(`http://${host}`);
    } catch { /* refused below */ }
    const port = url && (url.port === "" ? 80 : Number(url.port));
    if (
      !url || !LOOPBACK_NAMES.includes(url.hostname) || port !== options.port ||
      url.host !== host.toLowerCase()
    ) {
      return c.json(
        { error: `Host ${host} is not this app's address (127.0.0.1:${options.port})` },
        403,
      );
    }
    await next();
  };
}
