/**
 * `GET /api/processes?project=<folder>&id=<package>&screen=<screen instance>`:
 * the WebSocket through which a screen starts the programs its package
 * declares under `host.processes` and talks to them (`process_types.ts`).
 * One socket per screen instance; what it started stops when it closes.
 *
 * Besides the app's guards (loopback Host, the token's cookie), the upgrade
 * must carry exactly the app's own Origin: a browser sends one with every
 * WebSocket, and a page on another origin would otherwise reach the socket
 * with the person's cookie.
 *
 * @module
 */
import { Hono } from "hono";
import { InvalidInputError, NotFoundError, PermissionDeniedError } from "../../errors.ts";
import { isPackageId, notAPackageId } from "../../packages/mod.ts";
import { ownOrigin } from "../middleware/loopback_host.ts";
import { projectFolder } from "../project_folder.ts";
import { requiredParam } from "../query_params.ts";
import type { ScreenProcesses } from "../screen_processes.ts";

/** What names a screen instance: letters, digits, `.`, `_`, `:` and `-`, at most 128. */
const SCREEN_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The processes socket's route, to mount at `/api`.
 *
 * @param processes The screens' sockets; absent, the route says no program can be started.
 * @returns A Hono app for `app.route()`. Internal: its type is Hono's.
 * @internal
 */
export function processRoutes(processes: ScreenProcesses | undefined): Hono {
  const routes = new Hono();
  routes.get("/processes", async (c) => {
    const origin = c.req.header("origin");
    if (origin !== ownOrigin(c)) {
      throw new PermissionDeniedError(
        origin === undefined
          ? "The processes socket is opened by the app's own page, which sends its Origin"
          : `Pages from ${origin} may not open the processes socket`,
      );
    }
    const project = await projectFolder(c.req.query("project"));
    const packageId = requiredParam(c, "id", "the package whose screen it is");
    if (!isPackageId(packageId)) throw new InvalidInputError(`id: ${notAPackageId(packageId)}`);
    const screen = requiredParam(c, "screen", "the screen instance");
    if (!SCREEN_PATTERN.test(screen)) {
      throw new InvalidInputError(
        `screen: ${JSON.stringify(screen)} is not a screen instance; expected 1 to 128 ` +
          `letters, digits, ".", "_", ":" or "-"`,
      );
    }
    if (!processes || processes.closed) {
      throw new NotFoundError(
        processes
          ? "Sync is stopping; it starts no program now"
          : "This app starts no programs: it runs without a process supervisor",
      );
    }
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      return c.json({ error: "GET /api/processes is a WebSocket: open it as one" }, 426);
    }
    try {
      return processes.accept(c.req.raw, { project, packageId, screen });
    } catch (error) {
      // Deno refuses an upgrade whose handshake headers are missing or wrong.
      throw new InvalidInputError(
        `GET /api/processes is a WebSocket, and this upgrade is not one: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  });
  return routes;
}
