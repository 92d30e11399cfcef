/**
 * The web app's API, bound to 127.0.0.1. Before any route, each request
 * passes, in order: its Host is the app's loopback address and port
 * (`middleware/loopback_host.ts`); a state-changing request comes from the
 * app's own Origin (`middleware/same_origin.ts`); it carries the
 * installation's token, as Bearer when it changes something and has neither
 * an Origin nor a browser's `Sec-Fetch-Site: same-origin`
 * (`middleware/token_guard.ts`); and a state-changing request's body is JSON
 * and small (`middleware/json_body.ts`) — except the upload route's, an
 * archive's bytes, which that route types and caps itself (`api/uploads.ts`).
 * `/mcp` passes the Host guard and the same-origin rule and is then answered
 * by sync-mcp's endpoint, which checks its own tokens (the installation's or
 * an agent session's) and bodies (`runtime/mcp/mcp_endpoint.ts`).
 *
 * The same app answers on the owner's socket in the installation folder,
 * for the CLI and `sync mcp`: there the Host is not checked (no browser
 * reaches a Unix socket), every other guard is, and the CLI's command route
 * (`/api/owner`) is answered there only (`middleware/owner_socket_only.ts`).
 *
 * @module
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { httpStatusOf } from "../error_status.ts";
import { openProject } from "../lifecycle/mod.ts";
import { WEB_LIMITS } from "../limits.ts";
import { projectPath } from "../projects/mod.ts";
import { foregroundFirst } from "./middleware/foreground_first.ts";
import { jsonBody } from "./middleware/json_body.ts";
import { loopbackHost } from "./middleware/loopback_host.ts";
import { OVER_OWNER_SOCKET, ownerSocketOnly } from "./middleware/owner_socket_only.ts";
import { sameOrigin } from "./middleware/same_origin.ts";
import { tokenGuard } from "./middleware/token_guard.ts";
import { jsonObjectBody } from "./json_object_body.ts";
import { commandRoutes, type CommandRunner } from "./api/commands.ts";
import { extensionApproveRoute } from "./api/extension_approve.ts";
import { extensionPageRoute } from "./api/extension_page.ts";
import { extensionRunRoute } from "./api/extension_run.ts";
import { receiptConsoleRoute } from "./api/receipt_console.ts";
import { receiptsRoute } from "./api/receipts.ts";
import { extensionRemoveRoute } from "./api/extension_remove.ts";
import { extensionsRoute } from "./api/extensions.ts";
import { extensionSwitchRoute } from "./api/extension_switch.ts";
import { devicesRoute } from "./api/devices.ts";
import { TaskRunner } from "../applets/mod.ts";
import { projectsRoute } from "./api/projects.ts";
import { recordRoutes } from "./api/records.ts";
import type { WebHost } from "./web_host.ts";
import { installRoutes } from "./api/install.ts";
import { uploadRoutes, UPLOADS_PATH } from "./api/uploads.ts";
import { eventRoutes } from "./api/events.ts";
import { processRoutes } from "./api/processes.ts";
import type { ScreenProcesses } from "./screen_processes.ts";
import type { LinkedFolders } from "./linked_folders.ts";
import { UploadStore } from "./upload_store.ts";
import { pageRoutes } from "./pages.ts";
import type { WorkPerformer } from "../agents/mod.ts";
import { agentRoutes } from "./api/agents.ts";
import { chatRoutes } from "./api/chat.ts";
import { screenRoutes } from "./api/screens.ts";
import { type BrowsePlaces, folderRoutes } from "./api/folders.ts";
import { BUNDLED_EXAMPLES_DIR } from "./bundled_examples.ts";
import { SCREEN_FILES_PATH, screenPageRoutes } from "./screen_pages.ts";
import { MCP_PATH, type McpEndpoint } from "../mcp/mod.ts";

/**
 * What the page may load: files and connections of its own origin only. No
 * inline script or style, no frames, no plugins; images may also be data
 * URLs (the app draws its few icons in CSS).
 */
const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", "data:"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** Options for {@linkcode createApp}. */
export interface AppOptions {
  /** The installation's token. */
  token: string;
  /** The port the app is served on: the Host and Origin must name it, and it names the cookie. */
  port: number;
  /** Runs the CLI's commands sent to the owner (`/api/owner`); absent, that API is not served. */
  commands?: CommandRunner;
  /** The folder holding the page and its built files; the repository's `ui/` unless given. */
  uiDir?: URL;
  /** Performs work and a person's conversations (Chat's API); absent, Chat's routes are not served. */
  work?: WorkPerformer;
  /**
   * Answers `/mcp` (sync-mcp over Streamable HTTP), which checks its own
   * tokens (the installation's or an agent session's) and its own bodies;
   * absent, `/mcp` is not served.
   */
  mcp?: McpEndpoint;
  /**
   * The screens' sockets to the programs their packages declare
   * (`GET /api/processes`); absent, no program can be started.
   */
  processes?: ScreenProcesses;
  /**
   * Watches the linked folders of the packages of projects whose event
   * stream is open, and tells their changes; absent, nothing is watched.
   */
  linkedFolders?: LinkedFolders;
  /**
   * The serve's task runner, which the devices routes change devices
   * through; absent, one not started serves them (it runs what a person asks, nothing by itself).
   */
  tasks?: TaskRunner;
  /**
   * Where the folder browser may go (`GET /api/folders`) and where the
   * bundled examples are (`GET /api/examples`); absent, the person's home
   * (`HOME`) and the checkout's `extensions/`.
   */
  browse?: Partial<BrowsePlaces>;
}

/**
 * The app as its server and its tests use it. Its own type rather than
 * Hono's, so that what the app offers does not depend on the framework's
 * generic parameters.
 */
export interface WebApp {
  /** Answers one request that came over TCP; bound, so it can be handed to `Deno.serve` as it is. */
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** Answers one request that came over the owner's socket in the installation folder. */
  readonly socketFetch: (request: Request) => Response | Promise<Response>;
  /**
   * Answers a request without a server, given as a `Request`, a URL or a
   * path (taken on `http://localhost`); what the tests call.
   */
  readonly request: (
    input: Request | string | URL,
    init?: RequestInit,
  ) => Response | Promise<Response>;
}

/**
 * Builds the Hono app over a host.
 *
 * @param host The installation the API reads and changes, what runs the handlers that opening a
 *   project and removing a package call, what installs, and the bus the event stream watches.
 * @param options The token every request must carry, the port served on, the person's home
 *   folder, and what runs the commands the CLI sends.
 * @returns The app; `serve` hands its `fetch` to `Deno.serve`.
 */
export function createApp(host: WebHost, options: AppOptions): WebApp {
  const app = new Hono();
  const appHeaders = secureHeaders({ contentSecurityPolicy: CONTENT_SECURITY_POLICY });
  // A screen's document and files carry their own policy, set by their routes
  // (`screen_pages.ts`): the frame's opaque origin must be able to load them.
  const screenHeaders = secureHeaders({
    crossOriginResourcePolicy: "cross-origin",
    crossOriginOpenerPolicy: false,
  });
  app.use(
    "*",
    (c, next) => isScreenPath(c.req.path) ? screenHeaders(c, next) : appHeaders(c, next),
  );
  app.use("*", loopbackHost({ port: options.port }));
  if (host.foreground) app.use("/api/*", foregroundFirst(host.foreground));
  app.use("*", sameOrigin());
  const mcp = options.mcp;
  const screens = screenPageRoutes(host, { uiDir: options.uiDir });
  app.use("*", async (c, next) => {
    // sync-mcp takes session tokens too, and reads its own JSON-RPC bodies.
    if (mcp && c.req.path === MCP_PATH) return await mcp.handle(c.req.raw);
    // A screen's frame sends no cookie: its files are reached by the key its document made.
    if (c.req.path.startsWith(SCREEN_FILES_PATH)) return await screens.files.fetch(c.req.raw);
    await next();
  });
  app.use("*", tokenGuard({ token: options.token, port: options.port }));
  app.use("*", jsonBody({ maxBytes: WEB_LIMITS.maxJsonBodyBytes, ownBodies: [UPLOADS_PATH] }));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    const status = httpStatusOf(error);
    return c.json({ error: error.message, name: error.name }, status as 400);
  });
  app.get("/api/health", (c) => c.json({ ok: true }));
  if (options.commands) {
    app.use("/api/owner/*", ownerSocketOnly());
    app.route("/api/owner", commandRoutes(options.token, options.commands));
  }
  app.route("/api/projects", projectsRoute(host));
  app.route("/api/extensions", extensionsRoute(host));
  app.route("/api/extensions", extensionPageRoute(host));
  app.route("/api/extensions", extensionSwitchRoute(host));
  app.route("/api/devices", devicesRoute(options.tasks ?? new TaskRunner(host)));
  app.route("/api/extensions", extensionRemoveRoute(host));
  app.route("/api/extensions", extensionApproveRoute(host));
  app.route("/api/records", recordRoutes(host));
  app.route("/api/extensions", extensionRunRoute(host));
  app.route("/api/extensions", receiptConsoleRoute(host));
  app.route("/api/receipts", receiptsRoute(host));
  const uploads = new UploadStore(host.home, { now: host.now });
  app.route("/api", uploadRoutes(uploads));
  app.route("/api", installRoutes(host, uploads));
  app.route("/api", eventRoutes(host.events, { linkedFolders: options.linkedFolders }));
  app.route("/api/agents", agentRoutes(host.kv));
  if (options.work) app.route("/api/chat", chatRoutes(options.work));
  app.route("/api", processRoutes(options.processes));
  app.route("/api", folderRoutes(() => browsePlaces(options.browse)));
  app.post("/api/projects/open", async (c) => {
    const body = await jsonObjectBody(c, '{ "path": "<project folder>" }');
    const path = projectPath(body.path, { name: "path" });
    const result = await openProject(host, path);
    // The thrown errors stay here; their name and message are on each run.
    const opened = result.opened.map(({ failure: _, ...run }) => run);
    return c.json({ ...result, opened });
  });
  app.route("/api/screens", screenRoutes(host));
  app.route("/", screens.documents);
  app.route("/", pageRoutes({ uiDir: options.uiDir }));
  return {
    fetch: app.fetch,
    socketFetch: (request) => app.fetch(request, OVER_OWNER_SOCKET),
    request: app.request,
  };
}

/** Where the folder browser may go: what the app was given, else the person's home and the checkout's examples. */
function browsePlaces(given: Partial<BrowsePlaces> = {}): BrowsePlaces {
  let home = given.home;
  if (home === undefined) {
    try {
      home = Deno.env.get("HOME") ?? null;
    } catch {
      // No right to read the environment: no home to browse.
      home = null;
    }
  }
  return { home, examples: given.examples ?? BUNDLED_EXAMPLES_DIR };
}

/** A screen's document or one of its files. */
function isScreenPath(path: string): boolean {
  return path.startsWith("/screens/") || path.startsWith(SCREEN_FILES_PATH);
}
