/**
 * A package's screen, as the browser loads it into the sandboxed frame of
 * the project's window.
 *
 * - `GET /screens/<id>?project=<folder>` answers the screen's document: a
 *   page with no markup of the package's, which loads Sync's screen runtime
 *   and style sheet. It is asked for by the app's page with its cookie, and
 *   only for a package that serves the project now and has a screen.
 * - The document's files are served under a key made for that document
 *   alone, `GET /screen-files/<key>/<file>`: `runtime.js` (Sync's screen
 *   runtime, `ui/dist/screen.js`), `screen.css` (the app's colours, spaces
 *   and a few classes, `ui/dist/screen.css`), `index.js` (the package's built
 *   screen, the file its manifest's `ui` names, and nothing else of its
 *   folder) and `index.css` (the style sheet built beside it, when there is
 *   one).
 *
 * The frame is sandboxed without `allow-same-origin`, so its document has an
 * opaque origin of its own: the browser sends it no cookie, and its requests
 * for scripts are cross-origin. That is why the files are reached by key and
 * not by the installation's token — the key is unguessable, names one
 * package's screen in one project, and lapses after
 * {@linkcode SCREEN_FILE_KEY_MS} — and why they answer
 * `Access-Control-Allow-Origin: *` (a module script is fetched with CORS).
 *
 * The document's own Content-Security-Policy allows scripts and style
 * sheets only from its key's folder, images only as `data:` URLs, and no
 * connection, frame, worker, form or base; it is framed only by the app, and
 * its `sandbox` directive keeps it sandboxed even when opened on its own.
 *
 * @module
 */
import { Hono } from "hono";
import { describeError } from "../internal/describe_error.ts";
import { readFileAtMost } from "../internal/read_file_at_most.ts";
import { PACKAGE_FILE_LIMITS } from "../limits.ts";
import { httpStatusOf } from "../error_status.ts";
import { servingScreen } from "../extensions/mod.ts";
import { ownOrigin } from "./middleware/loopback_host.ts";
import { projectFolder } from "./project_folder.ts";
import type { WebHost } from "./web_host.ts";

/** The path the document's files are served under. */
export const SCREEN_FILES_PATH = "/screen-files/";

/** How long a document's key serves its files, in milliseconds. */
export const SCREEN_FILE_KEY_MS = 10 * 60_000;

/** The most keys kept at once; the oldest lapses first. */
const MAX_KEYS = 256;

/** What one document's key serves. */
interface KeyedScreen {
  project: string;
  id: string;
  module: string;
  styles: string | null;
  expires: number;
}

/** Options for {@linkcode screenPageRoutes}. */
export interface ScreenPageRoutesOptions {
  /** The folder holding `dist/screen.js` and `dist/screen.css`; the repository's `ui/` unless given. */
  uiDir?: URL;
}

/**
 * The screen's routes: the document (behind the token) and its keyed files
 * (before it). Internal: its members are Hono apps.
 *
 * @internal
 */
export interface ScreenPageRoutes {
  /** `GET /screens/:id`, to mount at `/` behind the token guard. */
  readonly documents: Hono;
  /** `GET /screen-files/:key/:file`, to mount at `/` before the token guard. */
  readonly files: Hono;
}

/**
 * The screens' document and file routes, sharing the keys the documents make.
 *
 * @param host The installation (to tell which package serves a project).
 * @param options Where Sync's screen runtime is.
 * @returns The two route sets. Internal: their type is Hono's.
 * @internal
 */
export function screenPageRoutes(
  host: Pick<WebHost, "kv" | "now">,
  options: ScreenPageRoutesOptions = {},
): ScreenPageRoutes {
  const uiDir = options.uiDir ?? new URL("../../ui/", import.meta.url);
  const keys = new Map<string, KeyedScreen>();
  const sweep = () => {
    const now = host.now();
    for (const [key, entry] of keys) if (entry.expires <= now) keys.delete(key);
    while (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  };

  const documents = new Hono();
  documents.get("/screens/:id", async (c) => {
    const id = c.req.param("id");
    // The Host guard has held the request to the app's own address.
    const origin = ownOrigin(c);
    let screen;
    try {
      const project = await projectFolder(c.req.query("project"));
      screen = await servingScreen(host.kv, project, id);
    } catch (error) {
      const { message } = describeError(error);
      return c.html(
        refusalPage(message),
        httpStatusOf(error) as 400,
        documentHeaders(origin, null),
      );
    }
    sweep();
    const key = randomKey();
    keys.set(key, {
      project: screen.project,
      id,
      module: screen.module,
      styles: screen.styles,
      expires: host.now() + SCREEN_FILE_KEY_MS,
    });
    const html = screenDocument(`${SCREEN_FILES_PATH}${key}/`, screen.package.manifest.name, {
      styles: screen.styles !== null,
    });
    return c.html(html, 200, documentHeaders(origin, key));
  });

  const files = new Hono();
  files.get(`${SCREEN_FILES_PATH}:key/:file`, async (c) => {
    const entry = keys.get(c.req.param("key"));
    const file = c.req.param("file");
    const headers = fileHeaders();
    if (!entry || entry.expires <= host.now()) {
      return c.text("This screen's address has lapsed; show the screen again", 404, headers);
    }
    let path: string | URL;
    let type: string;
    switch (file) {
      case "runtime.js":
        path = new URL("dist/screen.js", uiDir);
        type = "text/javascript; charset=utf-8";
        break;
      case "screen.css":
        path = new URL("dist/screen.css", uiDir);
        type = "text/css; charset=utf-8";
        break;
      case "index.js":
      case "index.css": {
        // The package is asked again: removed or no longer approved, its screen is not served.
        let now;
        try {
          now = await servingScreen(host.kv, entry.project, entry.id);
        } catch {
          return c.text(`${entry.id} no longer serves this project`, 404, headers);
        }
        const wanted = file === "index.js" ? now.module : now.styles;
        const kept = file === "index.js" ? entry.module : entry.styles;
        if (wanted === null || wanted !== kept) {
          return c.text(`${entry.id} has changed; show the screen again`, 404, headers);
        }
        path = wanted;
        type = file === "index.js" ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
        break;
      }
      default:
        return c.text(`No such file: ${SCREEN_FILES_PATH}<key>/${file}`, 404, headers);
    }
    let bytes: Uint8Array | null;
    try {
      bytes = await readFileAtMost(path, PACKAGE_FILE_LIMITS.maxFileBytes);
    } catch {
      return c.text(`${file} cannot be read`, 404, headers);
    }
    if (bytes === null) {
      return c.text(
        `${file} is larger than ${PACKAGE_FILE_LIMITS.maxFileBytes} bytes and is not served`,
        413,
        headers,
      );
    }
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { ...headers, "content-type": type });
  });
  return { documents, files };
}

/** 32 random bytes, as hex. */
function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The document's policy: only its own key's files, no connection of any
 * kind, framed only by the app, and sandboxed whoever opens it. A refusal
 * page (no key) loads nothing at all.
 */
function documentHeaders(origin: string, key: string | null): Record<string, string> {
  const files = key === null ? "'none'" : `${origin}${SCREEN_FILES_PATH}${key}/`;
  const policy = [
    "default-src 'none'",
    `script-src ${files}`,
    `style-src ${files}`,
    "img-src data:",
    "font-src 'none'",
    "connect-src 'none'",
    "media-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "manifest-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${origin}`,
    "sandbox allow-scripts",
  ].join("; ");
  return {
    "content-security-policy": policy,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}

/** The files' headers: readable from the frame's opaque origin, never cached, never sniffed. */
function fileHeaders(): Record<string, string> {
  return {
    "access-control-allow-origin": "*",
    "cross-origin-resource-policy": "cross-origin",
    "content-security-policy": "default-src 'none'; sandbox",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}

/** The screen's document: Sync's style sheet (and the package's), then Sync's runtime. */
function screenDocument(base: string, name: string, options: { styles: boolean }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(name)}</title>
<link rel="stylesheet" href="${base}screen.css">
${
    options.styles
      ? `<link rel="stylesheet" href="${base}index.css">\n`
      : ""
  }<script type="module" src="${base}runtime.js"></script>
</head>
<body></body>
</html>
`;
}

/** Why a screen is not shown, as a page with no script. */
function refusalPage(message: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Screen not shown</title></head>
<body><p>${escapeHtml(message)}</p></body>
</html>
`;
}

/** Text made safe to put into HTML. */
function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}
