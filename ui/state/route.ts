/**
 * The address bar is the app's state of where it is: `/` is the start page,
 * `/p/<project>/extensions/<id>` an extension's page in a project's window
 * (the project folder encoded as one segment), `/p/<project>/chat/<key>` a
 * conversation in its Chat, `/p/<project>/screen/<id>` an extension's screen,
 * `/p/<project>/records[/<kind>[/<name>]]` the project's records, of one kind,
 * or one record, `/p/<project>/devices/<id>` a device of the project.
 * {@linkcode navigate} changes
 * the address without a reload; back and forward are followed.
 *
 * @module
 */
import { signal } from "@preact/signals";

/** The areas of a project's window, in the navigator's order. */
export type Area = "extensions" | "devices" | "chat" | "screen" | "records";

/** The start page: every project Sync knows. */
export interface StartRoute {
  /** Which page. */
  page: "start";
}

/** A project's window. */
export interface ProjectRoute {
  /** Which page. */
  page: "project";
  /** The project folder, as the address gives it. */
  project: string;
  /** The area the three columns are turned over to. */
  area: Area;
  /**
   * The selection: a package's id in Extensions, Devices or Screen, a session's key in
   * Chat, the kind shown in Records; null when none is.
   */
  id: string | null;
  /** In Records, the name of the record shown (its key after `<kind>/`); absent when none is. */
  name?: string | null;
}

/** Where the app is. */
export type Route = StartRoute | ProjectRoute;

/** Reads an address's path. Unknown paths are the start page. */
export function parseRoute(pathname: string): Route {
  const parts = pathname.split("/").filter((part) => part !== "");
  if (parts[0] !== "p" || parts.length < 2) return { page: "start" };
  let project: string;
  try {
    project = decodeURIComponent(parts[1]);
  } catch {
    return { page: "start" };
  }
  const area: Area = parts[2] === "chat"
    ? "chat"
    : parts[2] === "screen" && parts[3]
    ? "screen"
    : parts[2] === "records"
    ? "records"
    : parts[2] === "devices"
    ? "devices"
    : "extensions";
  const id = decoded(parts[3]);
  if (area === "records") {
    const name = id === null ? null : decoded(parts[4]);
    return { page: "project", project, area, id, name };
  }
  return { page: "project", project, area, id };
}

/** A segment of an address, decoded; null when absent or not decodable. */
function decoded(part: string | undefined): string | null {
  if (!part) return null;
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/** The address of a route. */
export function routePath(route: Route): string {
  if (route.page === "start") return "/";
  if (route.area === "records" && route.id && route.name) {
    return recordPath(route.project, route.id, route.name);
  }
  const base = `/p/${encodeURIComponent(route.project)}/${route.area}`;
  return route.id ? `${base}/${encodeURIComponent(route.id)}` : base;
}

/**
 * The address of a project's window, of an extension's page or screen, of a
 * conversation, or of the records of one kind.
 */
export function projectPath(project: string, area: Area = "extensions", id?: string): string {
  return routePath({ page: "project", project, area, id: id ?? null });
}

/**
 * The address of a record in a project's records:
 * `/p/<project>/records/<kind>/<id>`, each part encoded as one segment.
 *
 * @param project The project folder.
 * @param kind The record's kind, such as `issues.issue`.
 * @param id The record's name within its kind: what follows the kind and `/` in its key.
 */
export function recordPath(project: string, kind: string, id: string): string {
  return `/p/${encodeURIComponent(project)}/records/${encodeURIComponent(kind)}/${
    encodeURIComponent(id)
  }`;
}

/** Where the app is now. */
export const route = signal<Route>(parseRoute(location.pathname));

/**
 * Goes to an address in the app without reloading.
 *
 * @param path The address, such as `projectPath(project)`.
 * @param options `replace` replaces the history entry instead of adding one.
 */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path !== location.pathname) {
    if (options.replace) history.replaceState(null, "", path);
    else history.pushState(null, "", path);
  }
  route.value = parseRoute(location.pathname);
}

addEventListener("popstate", () => {
  route.value = parseRoute(location.pathname);
});
