/**
 * The web app's API: bound to 127.0.0.1, every request carries the
 * installation's token (query `?token=` once, then an HttpOnly cookie), the
 * Host header must be the loopback address, and state-changing requests must
 * come from the app's own Origin.
 *
 * @module
 */
import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { httpStatusOf } from "../error_status.ts";
import { InvalidInputError } from "../errors.ts";
import { type OpenHost, openProject } from "../lifecycle/mod.ts";
import { listReceipts } from "../host/mod.ts";
import { type ProjectInfo, projectsPrefix, resolveProjectDir } from "../projects/mod.ts";
import { commandRoutes, type CommandRunner } from "./api/commands.ts";

/** Options for {@linkcode createApp}. */
export interface AppOptions {
  /** The installation's token. */
  token: string;
  /** The port the app is served on (for the Origin check). */
  port: number;
  /** Runs the CLI's commands sent to the owner (`/api/owner`); absent, that API is not served. */
  commands?: CommandRunner;
}

/**
 * The app as its server and its tests use it. Its own type rather than
 * Hono's, so that what the app offers does not depend on the framework's
 * generic parameters.
 */
export interface WebApp {
  /** Answers one request; bound, so it can be handed to `Deno.serve` as it is. */
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /**
   * Answers a request without a server, given as a `Request`, a URL or a
   * path (taken on `http://localhost`); what the tests call.
   */
  readonly request: (
    input: Request | string | URL,
    init?: RequestInit,
  ) => Response | Promise<Response>;
}

const LOOPBACK = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

/**
 * Builds the Hono app over a host.
 *
 * @param host The installation the API reads, and what runs the handlers opening a project calls.
 * @param options The token every request must carry, and the port served on.
 * @returns The app; `serve` hands its `fetch` to `Deno.serve`.
 */
export function createApp(host: OpenHost, options: AppOptions): WebApp {
  const app = new Hono();
  app.use("*", async (c, next) => {
    const hostHeader = c.req.header("host") ?? new URL(c.req.url).host;
    if (!LOOPBACK.test(hostHeader)) {
      return c.json({ error: `Host ${hostHeader} is not this machine's loopback address` }, 403);
    }
    const query = c.req.query("token");
    const token = query ?? getCookie(c, "sync_token") ??
      c.req.header("authorization")?.replace(/^Bearer /, "");
    if (token !== options.token) {
      return c.json({ error: "Missing or wrong token: open the URL Sync printed at start" }, 401);
    }
    if (!["GET", "HEAD", "OPTIONS"].includes(c.req.method)) {
      const origin = c.req.header("origin");
      if (origin && !LOOPBACK.test(origin.replace(/^https?:\/\//, ""))) {
        return c.json({ error: `Requests from ${origin} may not change anything here` }, 403);
      }
    }
    if (query) {
      setCookie(c, "sync_token", options.token, { httpOnly: true, sameSite: "Strict", path: "/" });
    }
    await next();
  });
  app.onError((error, c) => {
    const status = httpStatusOf(error);
    return c.json({ error: error.message, name: error.name }, status as 400);
  });
  app.get("/api/health", (c) => c.json({ ok: true }));
  if (options.commands) app.route("/api/owner", commandRoutes(options.token, options.commands));
  app.get("/api/projects", async (c) => {
    const projects: ProjectInfo[] = [];
    for await (const entry of host.kv.list<ProjectInfo>({ prefix: projectsPrefix() })) {
      projects.push(entry.value);
    }
    return c.json({ projects });
  });
  app.post("/api/projects/open", async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new InvalidInputError(
        'POST /api/projects/open takes JSON: { "path": "<project folder>" }',
      );
    }
    const path = (body as { path?: unknown })?.path;
    if (typeof path !== "string" || path === "") {
      throw new InvalidInputError('POST /api/projects/open needs "path", the project folder');
    }
    const result = await openProject(host, path);
    // The thrown errors stay here; their name and message are on each run.
    const opened = result.opened.map(({ failure: _, ...run }) => run);
    return c.json({ ...result, opened });
  });
  app.get("/api/receipts", async (c) => {
    const project = await resolveProjectDir(c.req.query("project") ?? "");
    const receipts = await listReceipts(host.kv, project, {
      packageId: c.req.query("id") || undefined,
      limit: Number(c.req.query("limit") ?? 50),
    });
    return c.json({ receipts });
  });
  return app;
}
