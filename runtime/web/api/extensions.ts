/**
 * `GET /api/extensions?project=<absolute folder>`: the Extensions list — every
 * package the project lists, with its lamp.
 *
 * @module
 */
import { Hono } from "hono";
import { listExtensions } from "../../extensions/mod.ts";
import { projectFolder } from "../project_folder.ts";
import type { ExtensionsResponse } from "./types.ts";
import type { WebHost } from "../web_host.ts";

/**
 * The Extensions list route, to mount at `/api/extensions`.
 *
 * @param host The installation.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function extensionsRoute(host: WebHost): Hono {
  const routes = new Hono();
  routes.get("/", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    const extensions = await listExtensions(host.kv, project, host);
    return c.json({ project, extensions } satisfies ExtensionsResponse);
  });
  return routes;
}
