/**
 * The browser app's pages and files: `/` and every `/p/…` address answer
 * the one HTML page (the app reads the address and shows what it names, so
 * reload, back and a copied link work), and `/assets/` answers the bundle
 * `deno task build:ui` wrote into `ui/dist/`. The page carries no inline
 * script or style: the Content-Security-Policy set in `app.ts` allows only
 * files from this origin.
 *
 * @module
 */
import { Hono } from "hono";

/** The files `/assets/` serves, and their media types; nothing else is served from disk. */
const ASSETS: Readonly<Record<string, string>> = Object.freeze({
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
});

/** Options for {@linkcode pageRoutes}. */
export interface PageRoutesOptions {
  /** The folder holding `index.html` and `dist/`; the repository's `ui/` unless given. */
  uiDir?: URL;
}

/**
 * The page and asset routes, to mount at `/`. A page load that carries
 * `?token=` (the address `serve` printed) has just set the cookie; it is
 * sent on to the same address without the token, so the token does not stay
 * in the address bar, the history or a copied link.
 *
 * @param options Where the page's files are.
 * @returns A Hono app for `app.route()`. Internal: its type is Hono's.
 * @internal
 */
export function pageRoutes(options: PageRoutesOptions = {}): Hono {
  const uiDir = options.uiDir ?? new URL("../../ui/", import.meta.url);
  const files = new Map<string, Promise<Uint8Array>>();
  // Read once and kept: the files change only with a new build, which comes with a restart.
  const read = (path: string) => {
    let file = files.get(path);
    if (!file) {
      file = Deno.readFile(new URL(path, uiDir));
      file.catch(() => files.delete(path));
      files.set(path, file);
    }
    return file;
  };
  const routes = new Hono();
  const page = async (c: import("hono").Context) => {
    const url = new URL(c.req.url);
    if (url.searchParams.has("token")) {
      url.searchParams.delete("token");
      return c.redirect(url.pathname + url.search, 303);
    }
    const html = await read("index.html");
    return c.body(html as Uint8Array<ArrayBuffer>, 200, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
    });
  };
  routes.get("/", page);
  routes.get("/p/*", page);
  routes.get("/assets/:file", async (c) => {
    const name = c.req.param("file");
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!type) return c.json({ error: `No such file: /assets/${name}` }, 404);
    let bytes: Uint8Array;
    try {
      bytes = await read(`dist/${name}`);
    } catch {
      return c.json({
        error: `/assets/${name} is not built: run deno task build:ui, then start serve again`,
      }, 404);
    }
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      "content-type": type,
      "cache-control": "no-cache",
    });
  });
  return routes;
}
