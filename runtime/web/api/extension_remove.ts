/**
 * `POST /api/extensions/:id/remove` with `{ "project": "<absolute folder>",
 * "force"?: true }`: removes a package from a project as `sync remove` does
 * (its `removed` handler first; a failure refuses the removal unless
 * `force`), and answers what stayed and what went.
 *
 * @module
 */
import { Hono } from "hono";
import { InvalidInputError } from "../../errors.ts";
import { removalOf } from "../../extensions/mod.ts";
import { removePackage } from "../../lifecycle/mod.ts";
import { readServingState } from "../../packages/mod.ts";
import { jsonObjectBody } from "../json_object_body.ts";
import { projectFolder } from "../project_folder.ts";
import type { RemoveResponse } from "./types.ts";
import type { WebHost } from "../web_host.ts";

const TAKES = '{ "project": "<absolute folder>", "force"?: true }';

/**
 * The remove route, to mount at `/api/extensions`.
 *
 * @param host What runs the package's `removed` handler, and the installation.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function extensionRemoveRoute(host: WebHost): Hono {
  const routes = new Hono();
  routes.post("/:id/remove", async (c) => {
    const body = await jsonObjectBody(c, TAKES);
    if (body.force !== undefined && typeof body.force !== "boolean") {
      throw new InvalidInputError(
        `"force" must be true or false, got ${JSON.stringify(body.force)}`,
      );
    }
    const project = await projectFolder(body.project);
    const id = c.req.param("id");
    // Read before it goes: what the removal takes depends on the version serving.
    const serving = await readServingState(host.kv, project, id);
    const manifest = "current" in serving ? serving.current.manifest : { id };
    const result = await removePackage(host, id, project, { force: body.force === true });
    // A removed handler that did not run is not named among what happened.
    const removal = removalOf(manifest, { removedRuns: result.removed !== null });
    // The thrown error stays here; its name and message are on the run.
    const removed = result.removed && (({ failure: _, ...run }) => run)(result.removed);
    return c.json(
      {
        id,
        project: result.project,
        removed,
        ...(result.notice ? { notice: result.notice } : {}),
        stays: removal.stays,
        went: removal.goes,
      } satisfies RemoveResponse,
    );
  });
  return routes;
}
