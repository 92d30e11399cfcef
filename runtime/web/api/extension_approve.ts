/**
 * `POST /api/extensions/:id/approve` with `{ "project": "<absolute folder>" }`:
 * approves, for the project, the update of a package that waits because it
 * asks for more than the project approved. The version stored on this
 * machine is the one approved (an archive's artefact stays in the store, a
 * folder stays linked); the answer is what `POST /api/install` answers.
 *
 * @module
 */
import { Hono } from "hono";
import { approveUpdate } from "../../lifecycle/mod.ts";
import { jsonObjectBody } from "../json_object_body.ts";
import { projectFolder } from "../project_folder.ts";
import { installAnswer } from "./install.ts";
import type { WebHost } from "../web_host.ts";

const TAKES = '{ "project": "<absolute folder>" }';

/**
 * The approve route, to mount at `/api/extensions`.
 *
 * @param host The installation, what runs the package's `installed` handler, and the bus.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function extensionApproveRoute(host: WebHost): Hono {
  const routes = new Hono();
  routes.post("/:id/approve", async (c) => {
    const body = await jsonObjectBody(c, TAKES);
    const project = await projectFolder(body.project);
    const result = await approveUpdate(host, project, c.req.param("id"));
    return c.json(installAnswer(result));
  });
  return routes;
}
