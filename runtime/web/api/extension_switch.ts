/**
 * `POST /api/extensions/:id/switch` with `{ "project": "<absolute folder>",
 * "state": "off" | "on" }`: switches a package's clock in a project, by the
 * rules of `sync switch` (only "off" is stored; a package that is not
 * installed there, or has no schedule, is refused).
 *
 * @module
 */
import { Hono } from "hono";
import { assertSwitchable, switchOff, switchOn } from "../../clock/mod.ts";
import { InvalidInputError } from "../../errors.ts";
import { readLamp } from "../../extensions/mod.ts";
import { jsonObjectBody } from "../json_object_body.ts";
import { projectFolder } from "../project_folder.ts";
import type { SwitchResponse } from "./types.ts";
import type { WebHost } from "../web_host.ts";

const TAKES = '{ "project": "<absolute folder>", "state": "off" | "on" }';

/**
 * The switch route, to mount at `/api/extensions`.
 *
 * @param host The installation, and the projects' memories (switching off fences running calls).
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function extensionSwitchRoute(host: WebHost): Hono {
  const routes = new Hono();
  routes.post("/:id/switch", async (c) => {
    const body = await jsonObjectBody(c, TAKES);
    const state = body.state;
    if (state !== "off" && state !== "on") {
      throw new InvalidInputError(
        `"state" must be "off" or "on", got ${JSON.stringify(state ?? null)}`,
      );
    }
    const project = await projectFolder(body.project);
    const id = c.req.param("id");
    await assertSwitchable(host.kv, project, id);
    if (state === "off") await switchOff(host.kv, project, id, host);
    else await switchOn(host.kv, project, id);
    const lamp = await readLamp(host.kv, project, id, host);
    return c.json({ id, project, state, lamp } satisfies SwitchResponse);
  });
  return routes;
}
