/**
 * `POST /api/uploads`: the bytes of an archive to install from, kept in the
 * installation's cache under an opaque id (`{ "upload": "<id>" }` in the
 * install routes' `source`). This is the one route whose body is not JSON:
 * it takes `application/octet-stream`, up to `UPLOAD_LIMITS.maxUploadBytes`
 * (the largest archive install takes), and refuses past that with 413 —
 * by its Content-Length at once, or as the bytes arrive.
 *
 * The page shows the upload's progress itself, from the bytes it has sent;
 * unpacking and checking are told on the event stream as `install-progress`.
 *
 * @module
 */
import { Hono } from "hono";
import { describeUploadSize, type UploadStore } from "../upload_store.ts";

/** The path of the upload route: the JSON body guard leaves its body to it. */
export const UPLOADS_PATH = "/api/uploads";

/** What `POST /api/uploads` answers. */
export interface UploadAnswer {
  /** The opaque id to install from: `source: { upload: id }`. */
  upload: string;
  /** How many bytes were kept. */
  bytes: number;
}

/**
 * The upload route, to mount at `/api`.
 *
 * @param uploads Where uploads are kept.
 * @returns A Hono app for `app.route()`. Internal: its type is Hono's.
 * @internal
 */
export function uploadRoutes(uploads: UploadStore): Hono {
  const routes = new Hono();
  routes.post("/uploads", async (c) => {
    const type = c.req.header("content-type");
    if (type?.split(";")[0].trim().toLowerCase() !== "application/octet-stream") {
      return c.json({
        error: `POST ${UPLOADS_PATH} takes the archive's bytes: send Content-Type: ` +
          `application/octet-stream${type === undefined ? "" : `, not ${type}`}`,
      }, 415);
    }
    const declared = Number(c.req.header("content-length") ?? NaN);
    if (declared > uploads.maxBytes) {
      return c.json({
        error: `The upload is ${describeUploadSize(declared)}; the largest archive Sync ` +
          `installs is ${describeUploadSize(uploads.maxBytes)}`,
        name: "PayloadTooLargeError",
      }, 413);
    }
    const saved = await uploads.save(c.req.raw.body);
    const answer: UploadAnswer = { upload: saved.id, bytes: saved.bytes };
    return c.json(answer, 201);
  });
  return routes;
}
