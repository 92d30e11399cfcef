/**
 * The rule an `agent.input` or `agent.output` JSON Schema is held to beyond
 * its `type`, the same at `deno task check` and at install since both read a
 * manifest through {@linkcode validateManifest}: nested at most
 * `MANIFEST_LIMITS.maxAgentSchemaDepth` levels, at most
 * `maxAgentSchemaBytes` long, every `pattern` and `patternProperties`
 * key one RE2 runs ({@linkcode linearPattern}), and `uniqueItems` only
 * where the items' declared type lets it be checked in one pass. sync-mcp checks calls and
 * answers against the schema with RE2 and lists it to every client; a
 * pattern that needs backtracking, or a schema nested thousands deep, would
 * hold or break the serve for every project.
 *
 * @module
 */
import { linearPattern } from "./linear_pattern.ts";
import { MANIFEST_LIMITS } from "../limits.ts";

/** One problem of a schema, at a path inside it. */
export interface AgentSchemaIssue {
  /** Where in the schema, as keys and indexes: `["properties", "w", "pattern"]`. */
  path: Array<string | number>;
  /** What is wrong and what to do. */
  message: string;
}

/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions", "dependentSchemas"]);

/** Keywords whose value is data, not a schema: a `pattern` inside is a value. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);

/** What a value met in the walk is: a schema, a map of schemas, or data. */
type Role = "schema" | "map" | "data";

/**
 * What is wrong with an agent tool's JSON Schema, beyond its `type`. The
 * walk uses no recursion, so a schema nested past any stack is refused
 * rather than breaking the check.
 *
 * @param schema The `agent.input` or `agent.output` value.
 * @returns Every problem found, empty when none; a schema too deep or too
 *   long is one problem, and its patterns are not read.
 * @example
 * ```ts
 * agentSchemaIssues({ type: "object", properties: { w: { type: "string", pattern: "(a)\\1" } } });
 * // [{ path: ["properties", "w", "pattern"], message: "invalid escape sequence: `\\1`; …" }]
 * ```
 */
export function agentSchemaIssues(schema: unknown): AgentSchemaIssue[] {
  const { maxAgentSchemaDepth, maxAgentSchemaBytes } = MANIFEST_LIMITS;
  const patterns: Array<{ source: string; path: Array<string | number> }> = [];
  const quadratic: Array<Array<string | number>> = [];
  const stack: Array<{ value: unknown; path: Array<string | number>; depth: number; role: Role }> =
    [{ value: schema, path: [], depth: 1, role: "schema" }];
  while (stack.length > 0) {
    const { value, path, depth, role } = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth > maxAgentSchemaDepth) {
      return [{
        path: [],
        message: `is nested more than ${maxAgentSchemaDepth} levels deep (objects and arrays ` +
          `within one another); a tool's schema that deep is not one a client can show or ` +
          `check: flatten it`,
      }];
    }
    if (role === "schema" && isRecord(value) && slowUniqueItems(value)) {
      quadratic.push([...path, "uniqueItems"]);
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (const [key, child] of entries) {
      let childRole: Role = role === "map" ? "schema" : role;
      if (role === "schema" && typeof key === "string") {
        if (key === "pattern" && typeof child === "string") {
          patterns.push({ source: child, path: [...path, key] });
        } else if (key === "patternProperties" && isRecord(child)) {
          for (const source of Object.keys(child)) {
            patterns.push({ source, path: [...path, key, source] });
          }
        }
        if (SCHEMA_MAPS.has(key) || key === "patternProperties") childRole = "map";
        else if (DATA_KEYWORDS.has(key)) childRole = "data";
      }
      stack.push({ value: child, path: [...path, key], depth: depth + 1, role: childRole });
    }
  }
  const bytes = new TextEncoder().encode(JSON.stringify(schema)).length;
  if (bytes > maxAgentSchemaBytes) {
    return [{
      path: [],
      message: `is ${bytes} bytes as JSON; at most ${maxAgentSchemaBytes} are allowed: a ` +
        `tool's schema is sent to every client that lists the tools`,
    }];
  }
  const issues: AgentSchemaIssue[] = quadratic.map((path) => ({
    path,
    message: "is checked only for arrays whose `items` declare a `type` of string, number, " +
      "integer, boolean or null: telling other items apart takes time that grows with the " +
      "square of the array's length, on the serve's one thread. Declare `items.type`, or " +
      "leave uniqueItems out and check it in the handler",
  }));
  for (const { source, path } of patterns) {
    try {
      linearPattern(source);
    } catch (error) {
      issues.push({
        path,
        message: `${JSON.stringify(source)} is not a pattern Sync can run: ` +
          (error as Error).message,
      });
    }
  }
  return issues;
}

/** Types whose values Ajv tells apart in one pass over an array. */
const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * True when a schema asks `uniqueItems` of an array whose items Ajv would
 * compare pairwise: their type is not declared, or is an object or an array.
 */
function slowUniqueItems(schema: Record<string, unknown>): boolean {
  if (!Object.hasOwn(schema, "uniqueItems") || schema.uniqueItems === false) return false;
  if (schema.uniqueItems !== true) return true;
  const items = schema.items;
  if (!isRecord(items)) return true;
  const types = Array.isArray(items.type) ? items.type : [items.type];
  return types.length === 0 || !types.every((t) => typeof t === "string" && SCALAR_TYPES.has(t));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
