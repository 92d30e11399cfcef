/**
 * What a package's screen reaches, through the app's side of its bridge:
 *
 * - `POST /api/screens/call` with `{ project, id, handler, payload? }` calls
 *   one of the package's own handlers with the occasion `extension`, as a
 *   person's action: the same claim, limits and receipt as any call.
 * - `POST /api/screens/memory` with `{ project, id, read, query? | key? }`
 *   reads the project's memory as the package's handlers read it.
 * - `POST /api/screens/net` with `{ project, id, request }` performs the
 *   package's `net.fetch` from the host, to its declared hosts only.
 *
 * Each is answered only for a package that serves the project now (installed
 * and approved) and has a screen. The screen itself never reaches these
 * routes: its frame has no cookie and no connection; the app calls them for
 * it, naming the package of the frame the request came from.
 *
 * @module
 */
import { Hono } from "hono";
import { InvalidInputError } from "../../errors.ts";
import {
  readScreenMemory,
  type ScreenMemoryRead,
  screenNetFetch,
  servingScreen,
} from "../../extensions/mod.ts";
import type { RecordQuery } from "../../extension_api/service.ts";
import { recordCursorSecret } from "../../host/mod.ts";
import { RecordCursors } from "../../memory/mod.ts";
import { jsonObjectBody } from "../json_object_body.ts";
import { projectFolder } from "../project_folder.ts";
import type { ScreenCallResponse, ScreenValueResponse } from "./types.ts";
import type { WebHost } from "../web_host.ts";

const CALL_TAKES = '{ "project": "<absolute folder>", "id": "<package id>", ' +
  '"handler": "<handler name>", "payload"?: <JSON> }';
const MEMORY_TAKES = '{ "project": "<absolute folder>", "id": "<package id>", ' +
  '"read": "list" | "record" | "content", "query"?: { kind?, prefix?, limit?, cursor? }, ' +
  '"key"?: "<kind/name>" }';
const NET_TAKES = '{ "project": "<absolute folder>", "id": "<package id>", ' +
  '"request": "<url>" | { url, method?, headers?, body? } }';

/**
 * The screens' routes, to mount at `/api/screens`.
 *
 * @param host The installation, what runs handlers, the projects' memories and the limits.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function screenRoutes(host: WebHost): Hono {
  const cursors = new RecordCursors(() => recordCursorSecret(host.kv));
  const routes = new Hono();
  routes.post("/call", async (c) => {
    const body = await jsonObjectBody(c, CALL_TAKES);
    const { project, id } = await screenOf(host, body);
    const handler = body.handler;
    if (typeof handler !== "string" || handler === "") {
      throw new InvalidInputError(`"handler": required: the name of one of ${id}'s handlers`);
    }
    const { value, receipt } = await host.callHandler(project, id, handler, {
      occasion: { kind: "extension" },
      source: { kind: "person", via: "screen" },
      payload: body.payload ?? null,
    });
    return c.json(
      { value, receipt: { id: receipt.id, outcome: receipt.outcome } } satisfies ScreenCallResponse,
    );
  });
  routes.post("/memory", async (c) => {
    const body = await jsonObjectBody(c, MEMORY_TAKES);
    const { project, id } = await screenOf(host, body);
    const value = await readScreenMemory(host, project, id, memoryRead(body), { cursors });
    return c.json({ value } satisfies ScreenValueResponse);
  });
  routes.post("/net", async (c) => {
    const body = await jsonObjectBody(c, NET_TAKES);
    const { project, id } = await screenOf(host, body);
    const value = await screenNetFetch(host.kv, project, id, body.request, {
      limits: host.limits,
      fetch: host.fetch,
      resolve: host.resolve,
    });
    return c.json({ value } satisfies ScreenValueResponse);
  });
  return routes;
}

/** The project and the package named, once the package is known to serve it with a screen. */
async function screenOf(
  host: WebHost,
  body: Record<string, unknown>,
): Promise<{ project: string; id: string }> {
  const project = await projectFolder(body.project);
  if (typeof body.id !== "string") {
    throw new InvalidInputError(`"id": required: the package id whose screen asks`);
  }
  await servingScreen(host.kv, project, body.id);
  return { project, id: body.id };
}

/** The memory read a body asks for. */
function memoryRead(body: Record<string, unknown>): ScreenMemoryRead {
  switch (body.read) {
    case "list": {
      const query = body.query ?? {};
      if (typeof query !== "object" || query === null || Array.isArray(query)) {
        throw new InvalidInputError(`"query": expected an object, got ${JSON.stringify(query)}`);
      }
      return { read: "list", query: query as RecordQuery };
    }
    case "record":
    case "content":
      if (typeof body.key !== "string") {
        throw new InvalidInputError(`"key": required: a record key, kind/name`);
      }
      return { read: body.read, key: body.key };
    default:
      throw new InvalidInputError(
        `"read" must be "list", "record" or "content", got ${JSON.stringify(body.read ?? null)}`,
      );
  }
}
