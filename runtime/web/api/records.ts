/**
 * The Records area's routes: what a person reads of their project's memory
 * in the window.
 *
 * - `GET /api/records/kinds?project=<folder>`: the kinds it holds, counted;
 * - `GET /api/records?project=<folder>[&kind=<kind>][&q=<words>][&cursor=<c>][&limit=<n>]`:
 *   a page of records, searched by key, title and fields, bounded by the
 *   records one page may read (`RECORD_VIEW_LIMITS`);
 * - `GET /api/records/one?project=<folder>&kind=<kind>&name=<name>`: one
 *   record whole, with the receipts of the calls that wrote its newest revisions.
 *
 * A person may read every kind of their project's memory; nothing here is
 * offered to a handler, whose reads stay `MemoryAccess`'s. A project with no
 * memory yet answers no records, and is not given one by being looked at.
 *
 * @module
 */
import { Hono } from "hono";
import { InvalidInputError, NotFoundError } from "../../errors.ts";
import { findReceipts } from "../../host/mod.ts";
import { RECORD_VIEW_LIMITS } from "../../limits.ts";
import {
  assertKind,
  listRecordKinds,
  parseRecordKey,
  projectMemoryPath,
  readRecordView,
  searchRecords,
} from "../../memory/mod.ts";
import { projectFolder } from "../project_folder.ts";
import { integerParam, requiredParam } from "../query_params.ts";
import type {
  RecordKindsResponse,
  RecordListResponse,
  RecordResponse,
  RecordWriterLine,
} from "./records_types.ts";
import type { WebHost } from "../web_host.ts";

/**
 * The Records area's routes, to mount at `/api/records`.
 *
 * @param host The installation.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function recordRoutes(host: WebHost): Hono {
  const routes = new Hono();
  /** The project's memory, or null while it has none: looking makes none. */
  const memoryOf = async (project: string) => {
    try {
      await Deno.lstat(projectMemoryPath(project));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
    return await host.projectMemory(project);
  };

  routes.get("/kinds", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    const memory = await memoryOf(project);
    const { kinds, more } = memory === null
      ? { kinds: [], more: false }
      : await listRecordKinds(memory);
    return c.json({ project, kinds, more } satisfies RecordKindsResponse);
  });

  routes.get("/", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    const kind = c.req.query("kind") || undefined;
    if (kind !== undefined) assertKind(kind);
    const text = c.req.query("q") ?? "";
    const cursor = c.req.query("cursor") || undefined;
    const limit = integerParam(c, "limit", {
      min: 1,
      max: RECORD_VIEW_LIMITS.maxPage,
      fallback: RECORD_VIEW_LIMITS.defaultPage,
    });
    const memory = await memoryOf(project);
    if (memory === null) {
      if (cursor !== undefined) throw noCursorHere();
      if (kind !== undefined) throw unknownKind(kind, []);
      return c.json({ project, records: [], scanned: 0 } satisfies RecordListResponse);
    }
    const page = await searchRecords(memory, { kind, text, limit, cursor }, {
      reader: JSON.stringify(["person", project]),
    });
    if (kind !== undefined && cursor === undefined && page.scanned === 0) {
      throw unknownKind(kind, (await listRecordKinds(memory)).kinds.map((k) => k.kind));
    }
    return c.json({ project, ...page } satisfies RecordListResponse);
  });

  routes.get("/one", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    const kind = requiredParam(c, "kind", "the record's kind, such as issues.issue");
    const name = requiredParam(c, "name", "the record's name, its key after the kind");
    const key = `${kind}/${name}`;
    parseRecordKey(key);
    const memory = await memoryOf(project);
    const view = memory === null ? null : await readRecordView(memory, key);
    if (view === null) {
      throw new NotFoundError(
        `This project has no record ${JSON.stringify(key)}: it was removed, or never written. ` +
          `Choose a record from the list`,
      );
    }
    const refs = view.writers.flatMap((writer) =>
      writer.receipt === undefined ? [] : [{ packageId: writer.by, id: writer.receipt }]
    );
    const receipts = await findReceipts(host.kv, project, refs);
    const writers = view.writers.map((writer): RecordWriterLine => {
      const receipt = writer.receipt === undefined ? undefined : receipts.get(writer.receipt);
      return {
        revision: writer.revision,
        by: writer.by,
        at: writer.at,
        ...(writer.receipt === undefined ? {} : { receiptId: writer.receipt }),
        receipt: receipt === undefined ? null : {
          id: receipt.id,
          handler: receipt.handler,
          occasion: receipt.occasion,
          ...(receipt.source === undefined ? {} : { source: receipt.source }),
          outcome: receipt.outcome,
          startedAt: receipt.startedAt,
        },
      };
    });
    return c.json(
      { project, record: view.record, content: view.content, writers } satisfies RecordResponse,
    );
  });
  return routes;
}

function unknownKind(kind: string, kinds: string[]): NotFoundError {
  return new NotFoundError(
    `This project has no records of kind ${JSON.stringify(kind)}` +
      (kinds.length > 0
        ? `; the kinds it holds are ${kinds.slice(0, 20).join(", ")}`
        : "; it has no records yet") +
      `. Records appear when an extension writes them`,
  );
}

function noCursorHere(): InvalidInputError {
  return new InvalidInputError(
    `This search cannot go on from the cursor given: this project has no records. ` +
      `Search again from the first page.`,
  );
}
