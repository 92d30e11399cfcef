/**
 * `GET /api/projects`: the projects Sync knows, as the clock keeps them — the
 * scheduled-projects list, and the projects remembered by when they were last
 * opened — each with whether its folder is gone.
 *
 * @module
 */
import { Hono } from "hono";
import { isFolder } from "../../internal/is_folder.ts";
import { listScheduledProjects } from "../../clock/mod.ts";
import { type ProjectInfo, projectsPrefix } from "../../projects/mod.ts";
import type { ProjectsResponse } from "./types.ts";
import type { WebHost } from "../web_host.ts";

/**
 * The projects route, to mount at `/api/projects`.
 *
 * @param host The installation.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function projectsRoute(host: WebHost): Hono {
  const routes = new Hono();
  routes.get("/", async (c) => {
    const scheduled: ProjectsResponse["scheduled"] = [];
    for (const project of await listScheduledProjects(host.kv)) {
      scheduled.push({ ...project, gone: !(await isFolder(project.path)) });
    }
    const remembered: ProjectInfo[] = [];
    for await (const entry of host.kv.list<ProjectInfo>({ prefix: projectsPrefix() })) {
      remembered.push(entry.value);
    }
    // Newest first; ISO 8601 times sort as text.
    remembered.sort((a, b) => a.openedAt < b.openedAt ? 1 : a.openedAt > b.openedAt ? -1 : 0);
    const recent: ProjectsResponse["recent"] = [];
    for (const project of remembered) {
      recent.push({ ...project, gone: !(await isFolder(project.path)) });
    }
    return c.json({ scheduled, recent } satisfies ProjectsResponse);
  });
  return routes;
}
