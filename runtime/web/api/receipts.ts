/**
 * `GET /api/receipts?project=<absolute folder>[&id=<package>][&outcome=<outcome>]
 * [&occasion=<kind>,…][&after=<receipt id>][&limit=<n>]`: a project's newest
 * receipts, of every package or one, narrowed by how the call ended and why
 * it was made, and to those newer than a receipt already seen. The window
 * reads the failed calls of the clock, agents and lifecycle moments from it
 * when it opens, so a failure that happened while no window was open is told.
 * It reads at most {@linkcode SCAN} receipts per request.
 *
 * @module
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { InvalidInputError } from "../../errors.ts";
import { isPackageId, notAPackageId } from "../../packages/mod.ts";
import { matchingReceipts, RECEIPTS_KEPT } from "../../host/mod.ts";
import type { OccasionKind } from "../../extension_api/service.ts";
import type { Outcome } from "../../types.ts";
import { projectFolder } from "../project_folder.ts";
import { integerParam } from "../query_params.ts";
import type { ProjectReceiptsResponse } from "./receipts_types.ts";
import type { WebHost } from "../web_host.ts";

/** The outcomes a receipt can have, for checking `outcome`. */
const OUTCOMES: ReadonlySet<string> = new Set<Outcome>([
  "ok",
  "failed",
  "skipped",
  "interrupted",
  "cancelled",
]);

/** The occasions a call can have, for checking `occasion`. */
const OCCASIONS: ReadonlySet<string> = new Set<OccasionKind>([
  "clock",
  "extension",
  "agent",
  "lifecycle",
  "task",
]);

/** Most receipts read in one request, matching or not: every package's kept receipts would be many more. */
const SCAN = RECEIPTS_KEPT;

/** A receipt's id as `newId` writes it: time, counter and random tail, in base 36. */
const RECEIPT_ID = /^[0-9a-z]{10}-[0-9a-z]{4}-[0-9a-z]{1,32}$/;

/**
 * The project's receipts route, to mount at `/api/receipts`.
 *
 * @param host The installation.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function receiptsRoute(host: WebHost): Hono {
  const routes = new Hono();
  routes.get("/", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    const packageId = packageIdParam(c);
    const limit = integerParam(c, "limit", { min: 1, max: RECEIPTS_KEPT, fallback: 50 });
    const outcome = c.req.query("outcome");
    if (outcome !== undefined && !OUTCOMES.has(outcome)) {
      throw new InvalidInputError(
        `outcome: expected one of ${[...OUTCOMES].join(", ")}, got ${JSON.stringify(outcome)}`,
      );
    }
    const occasions = occasionsParam(c.req.query("occasion"));
    const after = c.req.query("after");
    if (after !== undefined && !RECEIPT_ID.test(after)) {
      throw new InvalidInputError(
        `after: expected a receipt's id, such as one a receipt of this route names, got ${
          JSON.stringify(after.slice(0, 80))
        }`,
      );
    }
    const found = await matchingReceipts(host.kv, project, {
      match: (receipt) =>
        (outcome === undefined || receipt.outcome === outcome) &&
        (occasions === null || occasions.has(receipt.occasion.kind)),
      ...(packageId === undefined ? {} : { packageId }),
      ...(after === undefined ? {} : { after }),
      limit,
      scan: SCAN,
    });
    return c.json({ project, ...found } satisfies ProjectReceiptsResponse);
  });
  return routes;
}

/** The occasions asked for, or null when any will do. */
function occasionsParam(text: string | undefined): ReadonlySet<string> | null {
  if (text === undefined) return null;
  const kinds = text.split(",");
  const unknown = kinds.find((kind) => !OCCASIONS.has(kind));
  if (unknown !== undefined) {
    throw new InvalidInputError(
      `occasion: expected occasions from ${[...OCCASIONS].join(", ")}, separated by commas, ` +
        `got ${JSON.stringify(unknown.slice(0, 80))}`,
    );
  }
  return new Set(kinds);
}

/** The `id` parameter, a package id when given. */
function packageIdParam(c: Context): string | undefined {
  const id = c.req.query("id");
  if (id === undefined || id === "") return undefined;
  if (!isPackageId(id)) throw new InvalidInputError(`id: ${notAPackageId(id)}`);
  return id;
}
