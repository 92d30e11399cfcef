/**
 * A handler tool's schema as the SDK's server takes it, made from the
 * manifest's `agent.input` or `agent.output`: listed to clients exactly as
 * the manifest writes it, and checked with Ajv whose `pattern` and
 * `patternProperties` run on RE2 ({@linkcode linearPattern}). The SDK's
 * server checks every call's arguments and every answer with the schema it
 * is given, on the serve's one thread; a JavaScript regular expression there
 * would let a caller's text hold every project's requests for minutes.
 *
 * @module
 */
// @ts-types="ajv/dist/2020.d.ts"
import { Ajv2020 } from "ajv/dist/2020.js";
import { z } from "zod";
import { agentSchemaIssues, linearPattern } from "../packages/mod.ts";

/** Ajv's way to make a regular expression, given RE2's. */
const re2Engine = Object.assign((source: string) => linearPattern(source), {
  code: "linearPattern",
});

/**
 * The SDK's schema for one of a handler tool's JSON Schemas.
 *
 * @param schema The manifest's `agent.input` or `agent.output`.
 * @returns An object schema the SDK lists as `schema` and checks values with.
 * @throws {Error} When the schema breaks the manifest's rule for agent
 *   schemas (a manifest installed under an older rule) or Ajv cannot compile
 *   it; the message says why, and the tool is not offered.
 * @example
 * ```ts
 * toolSchema({ type: "object", properties: { w: { type: "string", pattern: "^[a-z]+$" } } });
 * ```
 * @ignore Answers zod's schema type, documented by zod.
 */
export function toolSchema(schema: Record<string, unknown>): z.ZodType {
  const issues = agentSchemaIssues(schema);
  if (issues.length > 0) {
    throw new Error(
      issues.map(({ path, message }) => `${path.length ? path.join(".") + " " : ""}${message}`)
        .join("; "),
    );
  }
  const ajv = new Ajv2020({
    strict: false,
    validateFormats: false,
    logger: false,
    code: { regExp: re2Engine },
  });
  const validate = ajv.compile(schema);
  const checked = z.looseObject({}).superRefine((value, ctx) => {
    if (validate(value)) return;
    for (const error of validate.errors ?? []) {
      ctx.addIssue({
        code: "custom",
        message: error.message ?? "does not fit the schema",
        path: error.instancePath.split("/").slice(1).map((part: string) =>
          part.replaceAll("~1", "/").replaceAll("~0", "~")
        ),
      });
    }
  });
  // The SDK lists a tool's schema through zod's JSON Schema conversion,
  // which takes a schema's own JSON Schema when it has one: the manifest's.
  // The conversion then skips the schema it was refined from, so it must
  // not look for it either.
  checked._zod.toJSONSchema = () => structuredClone(schema);
  checked._zod.parent = undefined;
  return checked;
}
