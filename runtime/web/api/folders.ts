/**
 * `GET /api/folders` and `GET /api/examples`: the folder browser of the
 * install card and the start page, and the example packages bundled with
 * Sync. Both only read, and only inside the person's home and the bundled
 * examples' folder (`folder_listing.ts` resolves every path before it
 * decides).
 *
 * @module
 */
import { Hono } from "hono";
import { listFolder, resolveRoots } from "../folder_listing.ts";
import { listBundledExamples } from "../bundled_examples.ts";
import type { BrowseRoot, ExamplesResponse, FolderListing } from "./types.ts";

/** Where the folder browser may go. */
export interface BrowsePlaces {
  /** The person's home folder; null when there is none to browse. */
  home: string | null;
  /** The folder of bundled example packages. */
  examples: string;
}

/**
 * The folder browser's and the examples' routes, to mount at `/api`.
 *
 * @param places Where the browser may go, read at each request.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function folderRoutes(places: () => BrowsePlaces): Hono {
  const routes = new Hono();
  routes.get("/folders", async (c) => {
    const { home, examples } = places();
    const given: BrowseRoot[] = [];
    if (home) given.push({ label: "Home", path: home });
    given.push({ label: "Bundled examples", path: examples });
    const path = c.req.query("path");
    const { roots, leftOut } = await resolveRoots(given);
    const listing = await listFolder(path === "" ? undefined : path, roots, {
      hidden: c.req.query("hidden") === "1",
    });
    return c.json({ ...listing, ...(leftOut.length ? { leftOut } : {}) } satisfies FolderListing);
  });
  routes.get("/examples", async (c) => {
    const { roots: [root] } = await resolveRoots([
      { label: "Bundled examples", path: places().examples },
    ]);
    const examples = root ? await listBundledExamples(root.path) : [];
    return c.json({ examples } satisfies ExamplesResponse);
  });
  return routes;
}
