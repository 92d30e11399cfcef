/**
 * `GET /api/extensions/:id?project=<absolute folder>[&receipts=<n>]`: an
 * extension's page in a project. A package the project lists whose page
 * cannot be read answers 404 with what the page can still offer
 * ({@linkcode UnreadableExtensionResponse}): why, where to fix it, and its
 * removal, which works without its files.
 *
 * @module
 */
import { Hono } from "hono";
import { NotFoundError } from "../../errors.ts";
import { describeExtension, removalOf } from "../../extensions/mod.ts";
import { RECEIPTS_KEPT } from "../../host/mod.ts";
import { EXTENSION_PAGE_LIMITS } from "../../limits.ts";
import { readPackageRef, readServingState } from "../../packages/mod.ts";
import { readDeclaredIds } from "../../projects/mod.ts";
import { projectFolder } from "../project_folder.ts";
import { integerParam } from "../query_params.ts";
import type {
  ExtensionPageResponse,
  UnreadableExtension,
  UnreadableExtensionResponse,
} from "./types.ts";
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
    const project = await projectFolder(c.req.query("project"));
    const id = c.req.param("id");
    const receipts = integerParam(c, "receipts", {
      min: 1,
      max: RECEIPTS_KEPT,
      fallback: EXTENSION_PAGE_LIMITS.defaultReceipts,
    });
    let page;
    try {
      page = await describeExtension(host.kv, project, id, {
        now: host.now,
        limits: host.limits,
        receipts,
      });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      const unreadable = await unreadableExtension(host.kv, project, id);
      if (!unreadable) throw error;
      return c.json(
        {
          error: error.message,
          name: error.name,
          unreadable,
        } satisfies UnreadableExtensionResponse,
        404,
      );
    }
    return c.json({ project, ...page } satisfies ExtensionPageResponse);
  });
  return routes;
}

/** The package, when the project lists it but it cannot be read; null otherwise. */
async function unreadableExtension(
  kv: Deno.Kv,
  project: string,
  id: string,
): Promise<UnreadableExtension | null> {
  if (!(await readDeclaredIds(project)).includes(id)) return null;
  const serving = await readServingState(kv, project, id);
  if (serving.state !== "cannot-load" && serving.state !== "not-on-machine") return null;
  const ref = serving.state === "cannot-load" ? await readPackageRef(kv, id) : null;
  return {
    id,
    project,
    state: serving.state,
    problem: serving.state === "cannot-load" ? serving.message : null,
    linkedFolder: ref?.source === "folder" ? ref.dir : null,
    // Nothing of it can be read, so no removed handler runs.
    removal: removalOf({ id }, {
      removedRuns: false,
      onMachine: serving.state !== "not-on-machine",
    }),
  };
}
