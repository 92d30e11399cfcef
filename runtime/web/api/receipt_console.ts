/**
 * `GET /api/extensions/:id/receipts/:receipt/console?project=<absolute folder>`:
 * the console lines a call's handler wrote, kept with its receipt (bounded,
 * with how many were left out), for the receipt's row on the extension's page.
 *
 * @module
 */
import { Hono } from "hono";
import { InvalidInputError } from "../../errors.ts";
import { readReceiptConsole } from "../../host/mod.ts";
import { isPackageId, notAPackageId } from "../../packages/mod.ts";
import { projectFolder } from "../project_folder.ts";
import type { ReceiptConsoleResponse } from "./types.ts";
import type { WebHost } from "../web_host.ts";

/** A receipt's id: the time-ordered ids `newId` makes are far shorter. */
const MAX_RECEIPT_ID_CHARS = 100;

/**
 * The receipt console route, to mount at `/api/extensions`.
 *
 * @param host The installation.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function receiptConsoleRoute(host: WebHost): Hono {
  const routes = new Hono();
  routes.get("/:id/receipts/:receipt/console", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    const id = c.req.param("id");
    if (!isPackageId(id)) throw new InvalidInputError(notAPackageId(id));
    const receipt = c.req.param("receipt");
    if (receipt.length > MAX_RECEIPT_ID_CHARS) {
      throw new InvalidInputError(`"${receipt.slice(0, 20)}…" is not a receipt's id`);
    }
    const console = await readReceiptConsole(host.kv, project, id, receipt);
    return c.json({ console } satisfies ReceiptConsoleResponse);
  });
  return routes;
}
