/**
 * `POST /api/extensions/:id/run` with `{ "project": "<absolute folder>",
 * "handler": "<name>", "payload"?: <JSON> }`: a person runs one of a
 * package's handlers from its page (Run now). The call is the one `sync call`
 * makes — the occasion `extension`, the person as its source, here `via` the
 * window — with the same claim, limits, deadline and receipt.
 *
 * A call that was attempted answers 200 with how it ended, its answer laid
 * out for reading (cut past `RUN_NOW_LIMITS`) or its error, and its receipt.
 * A call that could not be attempted — the package not serving the project,
 * no such handler, a handler Sync runs at a lifecycle moment, a payload past
 * what a call takes — is refused with the error's status and its words, and
 * leaves no receipt. A request that goes away (the page left) calls the
 * call off: nothing it staged commits, and its receipt says `cancelled`.
 *
 * @module
 */
import { Hono } from "hono";
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from "../../errors.ts";
import { runNowRefusal } from "../../extensions/mod.ts";
import { cutText } from "../../internal/cut_text.ts";
import { describeError } from "../../internal/describe_error.ts";
import { RUN_NOW_LIMITS } from "../../limits.ts";
import { servingPackage } from "../../packages/mod.ts";
import { readDeclaredIds } from "../../projects/mod.ts";
import type { Receipt } from "../../types.ts";
import { jsonObjectBody } from "../json_object_body.ts";
import { projectFolder } from "../project_folder.ts";
import type { RunAnswer, RunResponse } from "./types.ts";
import type { WebHost } from "../web_host.ts";

const TAKES = '{ "project": "<absolute folder>", "handler": "<handler name>", ' +
  '"payload"?: <JSON> }';

const encoder = new TextEncoder();

/**
 * The Run now route, to mount at `/api/extensions`.
 *
 * @param host The installation and what runs handlers.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function extensionRunRoute(host: WebHost): Hono {
  const routes = new Hono();
  routes.post("/:id/run", async (c) => {
    const body = await jsonObjectBody(c, TAKES);
    const project = await projectFolder(body.project);
    const id = c.req.param("id");
    const handler = body.handler;
    if (typeof handler !== "string" || handler === "") {
      throw new InvalidInputError(`"handler": required: the name of one of ${id}'s handlers`);
    }
    const payload = body.payload ?? null;
    const bytes = encoder.encode(JSON.stringify(payload)).byteLength;
    if (bytes > host.limits.maxValueBytes) {
      throw new PayloadTooLargeError(
        `The payload is ${bytes} bytes of JSON; a handler takes at most ` +
          `${host.limits.maxValueBytes}. Send less, or keep the rest in a record and name it`,
      );
    }
    // What serves here, and whether a person may run this handler by hand,
    // before anything is attempted: a refusal here leaves no receipt.
    const pkg = await servingPackage(host.kv, project, id, {
      declaredIds: await readDeclaredIds(project),
    });
    // Own names only: `toString` is on every object's prototype and declared by no manifest.
    if (!Object.hasOwn(pkg.manifest.handlers, handler)) {
      const declared = Object.keys(pkg.manifest.handlers);
      throw new NotFoundError(
        `${id} has no handler ${handler}` +
          (declared.length ? `; it declares ${declared.join(", ")}` : "; it declares none"),
      );
    }
    const refusal = runNowRefusal(pkg.manifest, handler);
    if (refusal) throw new InvalidInputError(refusal);
    let left: Receipt | null = null;
    try {
      const { value, receipt } = await host.callHandler(project, id, handler, {
        occasion: { kind: "extension" },
        source: { kind: "person", via: "window" },
        payload,
        // Serve runs with --unstable-no-legacy-abort: the signal aborts only
        // when the person goes away (Stop), not once the answer is sent.
        signal: c.req.raw.signal,
        onReceipt: (written) => left = written,
      });
      return c.json(
        {
          outcome: receipt.outcome,
          answer: answerOf(value),
          receipt: lineOf(left ?? receipt),
        } satisfies RunResponse,
      );
    } catch (error) {
      // Not attempted (nothing to call): the error is the answer.
      if (left === null) throw error;
      const receipt: Receipt = left;
      return c.json(
        {
          outcome: receipt.outcome,
          answer: null,
          error: describeError(error),
          receipt: lineOf(receipt),
        } satisfies RunResponse,
      );
    }
  });
  return routes;
}

/** The answer as the page shows it: a string as text, anything else as laid-out JSON, cut past the limit. */
function answerOf(value: unknown): RunAnswer {
  if (value === null || value === undefined) return { kind: "none" };
  const whole = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  const text = cutText(whole, RUN_NOW_LIMITS.maxAnswerChars);
  return { kind: typeof value === "string" ? "text" : "json", text, cut: text !== whole };
}

function lineOf(receipt: Receipt): RunResponse["receipt"] {
  return {
    ...receipt,
    durationMs: Math.max(0, Date.parse(receipt.endedAt) - Date.parse(receipt.startedAt)),
  };
}
