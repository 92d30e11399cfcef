/**
 * A request's JSON body, read as an object: anything else is an
 * `InvalidInputError` (400) that says what the route takes.
 *
 * @module
 */
import type { Context } from "hono";
import { InvalidInputError } from "../errors.ts";
import { WEB_LIMITS } from "../limits.ts";
import { nestedDeeperThan } from "./json_depth.ts";

/**
 * Reads the body as a JSON object.
 *
 * @param c The request's context.
 * @param takes What the route takes, for the message (such as `{ "project": "<folder>" }`).
 * @throws {InvalidInputError} when the body is not JSON, is nested deeper
 *   than `WEB_LIMITS.maxJsonDepth`, or is not an object.
 *
 * Internal to `runtime/web/`: its type is Hono's, which Sync's documented
 * surface does not name.
 * @internal
 */
export async function jsonObjectBody(
  c: Context,
  takes: string,
): Promise<Record<string, unknown>> {
  let body: unknown;
  let text: string;
  try {
    text = await c.req.text();
  } catch {
    throw new InvalidInputError(`${c.req.method} ${c.req.path} takes JSON: ${takes}`);
  }
  if (nestedDeeperThan(text, WEB_LIMITS.maxJsonDepth)) {
    throw new InvalidInputError(
      `${c.req.method} ${c.req.path} takes JSON nested at most ${WEB_LIMITS.maxJsonDepth} ` +
        `levels deep, and this body is nested deeper: ${takes}`,
    );
  }
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidInputError(`${c.req.method} ${c.req.path} takes JSON: ${takes}`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new InvalidInputError(`${c.req.method} ${c.req.path} takes a JSON object: ${takes}`);
  }
  return body as Record<string, unknown>;
}
