/**
 * The address bar is the app's state of where it is: `/` is the start page,
 * `/p/<project>/extensions/<id>` an extension's page in a project's window
 * (the project folder encoded as one segment), `/p/<project>/chat/<key>` a
 * conversation in its Chat, `/p/<project>/screen/<id>` an extension's screen.
 * {@linkcode navigate} changes
 * the address without a reload; back and forward are followed.
 *
 * @module
 */
import { signal } from "@preact/signals";

/** The areas of a project's window, in the navigator's order. */
export type Area = "extensions" | "chat" | "screen";

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
  /** The selection: a package's id in Extensions or Screen, a session's key in Chat; null when none is. */
  id: string | null;
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
    : "extensions";
  let id: string | null = null;
  if (parts[3]) {
    try {
      id = decodeURIComponent(parts[3]);
    } catch {
      id = null;
    }
  }
  return { page: "project", project, area, id };
}

/** The address of a route. */
export function routePath(route: Route): string {
  if (route.page === "start") return "/";
  const base = `/p/${encodeURIComponent(route.project)}/${route.area}`;
  return route.id ? `${base}/${encodeURIComponent(route.id)}` : base;
}

/** The address of a project's window, of an extension's page or screen, or of a conversation. */
export function projectPath(project: string, area: Area = "extensions", id?: string): string {
  return routePath({ page: "project", project, area, id: id ?? null });
}

/**
 * The address of a record in a project's records view:
 * `/p/<project>/records/<kind>/<id>`, each part encoded as one segment.
 *
 * @param project The project folder, as the address gives it.
 * @param kind The record's kind, such as `chat.conversation`.
 * @param id The record's id within its kind (the part of its key after the kind's `/`).
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
