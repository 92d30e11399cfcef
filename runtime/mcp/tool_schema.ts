/**
 * A handler tool's schema as the SDK's server takes it, made from the
 * manifest's `agent.input` or `agent.output`: listed to clients exactly as
 * the manifest writes it, and checked with Ajv whose `pattern` and
 * `patternProperties` run on RE2 ({@linkcode linearPattern}). The SDK's
 * server checks every call's arguments and every answer with the schema it
 * is given, on the serve's one thread; a JavaScript regular expression there
 * would let a caller's text hold every project's requests for minutes.
 *
 * Ajv compiles a schema to code, with its meta-schema first: every MCP
 * session opens a server of its own and offers the project's tools anew,
 * so a schema is compiled once per serve and the same one given to every
 * session since.
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

/** The most schemas kept compiled; past it, the one made first is let go of. */
const MAX_KEPT = 256;

/** Schemas compiled before, by their JSON text. */
const kept = new Map<string, z.ZodType>();

/**
 * The SDK's schema for one of a handler tool's JSON Schemas; the same one
 * for the same JSON Schema (a schema the SDK's server only reads).
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
  const key = JSON.stringify(schema);
  const known = kept.get(key);
  if (known) return known;
  // Its own copy: what the caller holds may change after.
  const made = compiledSchema(structuredClone(schema));
  if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(key, made);
  return made;
}

/** Checks and compiles a schema (see {@linkcode toolSchema}). */
function compiledSchema(schema: Record<string, unknown>): z.ZodType {
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
