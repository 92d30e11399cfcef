/**
 * `GET /api/extensions/:id?project=<absolute folder>[&receipts=<n>]`: an
 * extension's page in a project.
 *
 * @module
 */
import { Hono } from "hono";
import { describeExtension } from "../../extensions/mod.ts";
import { RECEIPTS_KEPT } from "../../host/mod.ts";
import { EXTENSION_PAGE_LIMITS } from "../../limits.ts";
import { projectFolder } from "../project_folder.ts";
import { integerParam } from "../query_params.ts";
import type { ExtensionPageResponse } from "./types.ts";
import type { WebHost } from "../web_host.ts";

/**
 * The extension's page route, to mount at `/api/extensions`.
 *
 * @param host The installation.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function extensionPageRoute(host: WebHost): Hono {
  const routes = new Hono();
  routes.get("/:id", async (c) => {
    const project = await projectFolder(c.req.query("project"), "project");
    const receipts = integerParam(c, "receipts", {
      min: 1,
      max: RECEIPTS_KEPT,
      fallback: EXTENSION_PAGE_LIMITS.defaultReceipts,
    });
    const page = await describeExtension(host.kv, project, c.req.param("id"), {
      now: host.now,
      limits: host.limits,
      receipts,
    });
    return c.json({ project, ...page } satisfies ExtensionPageResponse);
  });
  return routes;
}
