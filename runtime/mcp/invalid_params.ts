/**
 * Requests whose params do not fit their method, answered as JSON-RPC's
 * "invalid params" (-32602) with a line naming what was wrong.
 *
 * The SDK checks a request's params against its method's schema before the
 * handler runs, but reports a mismatch as an internal error (-32603) whose
 * message is the schema library's issue list as JSON: `tools/call` with
 * `"arguments": null` read as a failed server. sync-mcp checks the params of
 * the methods it serves first, with the same schemas, and answers itself.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC's code for invalid parameters. */
export const INVALID_PARAMS: number = -32602;

/** A JSON-RPC error answer to one request. */
export interface InvalidParamsAnswer {
  /** JSON-RPC's version. */
  jsonrpc: "2.0";
  /** The request's id. */
  id: string | number;
  /** {@linkcode INVALID_PARAMS}, and what was wrong. */
  error: { code: number; message: string };
}

/** One problem a schema found, as the schema library reports it. */
interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
}

/** What a request's schema answers when asked whether the request fits. */
type Fit = { success: true } | { success: false; error: { issues: Issue[] } };

/** The schema of each method sync-mcp serves whose params the SDK checks. */
const SCHEMAS: Readonly<Record<string, { safeParse(value: unknown): Fit }>> = {
  "ping": PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
  "prompts/list": ListPromptsRequestSchema,
  "prompts/get": GetPromptRequestSchema,
};

/** What a schema's expected type is, in words. */
const EXPECTED: Readonly<Record<string, string>> = {
  record: "an object",
  object: "an object",
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "an array",
};

/** A value as the message names it, short. */
function described(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string": {
      const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
      return `the string ${JSON.stringify(shown)}`;
    }
    case "number":
    case "boolean":
      return `${typeof value} ${value}`;
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

/** The value at `path` in `root`, or undefined. */
function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** One issue, in words: where in the request, and what was wrong. */
function sentence(issue: Issue, request: unknown): string {
  // Every method's params are under `params`: named from there.
  const inParams = issue.path[0] === "params" && issue.path.length > 1;
  const where = (inParams ? issue.path.slice(1) : issue.path).map(String).join(".") ||
    "the request";
  if (issue.code === "invalid_type" && issue.expected !== undefined) {
    const value = valueAt(request, issue.path);
    const wanted = Object.hasOwn(EXPECTED, issue.expected)
      ? EXPECTED[issue.expected]
      : issue.expected;
    return value === undefined
      ? `${where} is missing; it must be ${wanted}`
      : `${where} must be ${wanted}, not ${described(value)}`;
  }
  return `${where}: ${issue.message}`;
}

/**
 * The answer to a request whose params do not fit its method, or null when
 * they do (or the message is not a request sync-mcp checks).
 *
 * @param message A JSON-RPC message the client sent.
 * @returns A JSON-RPC error answer with code -32602, naming what was wrong.
 */
export function invalidParams(message: object): InvalidParamsAnswer | null {
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (typeof method !== "string" || (typeof id !== "string" && typeof id !== "number")) {
    return null;
  }
  const fit = Object.hasOwn(SCHEMAS, method) ? SCHEMAS[method].safeParse(message) : undefined;
  if (!fit || fit.success) return null;
  const problems = fit.error.issues.map((issue) => sentence(issue, message));
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: INVALID_PARAMS,
      message: `Invalid params for ${method}: ${problems.join("; ")}`,
    },
  };
}
