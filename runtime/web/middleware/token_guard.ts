/**
 * Every request carries the installation's token: in the URL once
 * (`?token=`, on a page load, which sets the cookie), in the app's cookie, or
 * as `Authorization: Bearer`. Tokens are compared in constant time.
 *
 * The cookie is sent by the browser with any request to 127.0.0.1, whatever
 * page made it, so it counts for a state-changing request only when the
 * request carries the app's own Origin (`sameOrigin` has checked it). A
 * state-changing request with no Origin comes from a program, not the app's
 * page: it must carry the Bearer token.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { getCookie, setCookie } from "hono/cookie";
import { timingSafeEqual } from "hono/utils/buffer";
import { changesState } from "./same_origin.ts";

/** What a request without a valid token is told. */
const MISSING = "Missing or wrong token: open the URL Sync printed at start";

/** What a browser is shown for a page asked for without the token: no script, nothing from the request. */
const MISSING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sync needs its address</title></head>
<body><h1>Open the address Sync printed</h1>
<p>This page needs the installation's token. Open the address <code>deno task serve</code> printed
when it started: it ends with <code>?token=</code>. Once opened, this browser keeps it.</p>
</body></html>`;

/**
 * The name of the app's token cookie: a browser sends a 127.0.0.1 cookie to
 * every port there, so the name carries the port and two installations
 * served on two ports do not overwrite each other's.
 *
 * @param port The port the app is served on.
 */
function tokenCookieName(port: number): string {
  return `sync_token_${port}`;
}

/** Options for {@linkcode tokenGuard}. */
export interface TokenGuardOptions {
  /** The installation's token. */
  token: string;
  /** The port the app is served on: it names the cookie. */
  port: number;
}

/**
 * Refuses (401) a request without the installation's token, and a
 * state-changing request that does not carry it as Bearer unless a browser
 * says the app's own page sent it (an Origin, or `Sec-Fetch-Site:
 * same-origin`).
 *
 * @param options The token and the app's port.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export function tokenGuard(options: TokenGuardOptions): MiddlewareHandler {
  const cookieName = tokenCookieName(options.port);
  const bearer = bearerAuth({
    token: options.token,
    noAuthenticationHeader: { message: { error: MISSING } },
    invalidAuthenticationHeader: {
      message: { error: "The Authorization header must be: Bearer <token>" },
    },
    invalidToken: { message: { error: MISSING } },
  });
  return async (c, next) => {
    // A Bearer header, when sent, is the credential: a wrong one is not
    // rescued by a cookie the browser happened to add.
    if (c.req.header("authorization") !== undefined) return await bearer(c, next);
    if (changesState(c.req.method)) {
      // Chromium may leave the Origin off a request the page sends to its own
      // origin; it marks it `Sec-Fetch-Site: same-origin`, which no page can set.
      const ownPage = c.req.header("origin") !== undefined ||
        c.req.header("sec-fetch-site") === "same-origin";
      if (!ownPage) {
        return c.json({
          error: "A request that changes something and carries no Origin must carry the " +
            "token as Authorization: Bearer <token>; the cookie is only for the app's own page",
        }, 401);
      }
      const cookie = getCookie(c, cookieName);
      if (cookie === undefined || !await timingSafeEqual(cookie, options.token)) {
        return c.json({ error: MISSING }, 401);
      }
      return await next();
    }
    const query = c.req.query("token");
    const given = query ?? getCookie(c, cookieName);
    if (given === undefined || !await timingSafeEqual(given, options.token)) {
      // A person opening a page gets the same words as a page, not as JSON.
      if (c.req.header("accept")?.includes("text/html")) return c.html(MISSING_PAGE, 401);
      return c.json({ error: MISSING }, 401);
    }
    if (query !== undefined) {
      setCookie(c, cookieName, options.token, { httpOnly: true, sameSite: "Strict", path: "/" });
    }
    await next();
  };
}
