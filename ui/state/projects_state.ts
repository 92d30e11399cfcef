/**
 * What the start page knows, kept live: the projects on the clock and the
 * ones opened lately, read from `GET /api/projects` and read again when the
 * start page's event stream tells that a project was opened, a package was
 * installed or removed, or a project was taken off the clock — whether the
 * page, the CLI or another window did it. Kept between visits, so the start
 * page shows the last list at once while it reads again.
 *
 * @module
 */
import { signal } from "@preact/signals";
import type { ProjectsResponse } from "../../runtime/web/api/types.ts";
import { getJson, messageOf } from "../api/client.ts";
import { watchProjects } from "../api/events.ts";

/** The projects Sync knows; null until read. */
export const projects = signal<ProjectsResponse | null>(null);
/** Why they could not be read; null when they could. */
export const projectsError = signal<string | null>(null);

let reading: Promise<void> | null = null;
let again = false;

/** Reads the projects again; one read at a time, and one more after it for what came during it. */
export function reloadProjects(): Promise<void> {
  if (reading) {
    again = true;
    return reading;
  }
  reading = (async () => {
    do {
      again = false;
      try {
        projects.value = await getJson<ProjectsResponse>("/api/projects");
        projectsError.value = null;
      } catch (thrown) {
        projectsError.value = messageOf(thrown);
      }
    } while (again);
    reading = null;
  })();
  return reading;
}

/**
 * Reads the projects now and again whenever a fact could change them, until
 * the returned function is called.
 */
export function watchProjectList(): () => void {
  void reloadProjects();
  return watchProjects((event) => {
    // `ready` starts every connection; a reconnect is told as `resync`, read again then.
    if (event.type !== "ready") void reloadProjects();
  });
}
