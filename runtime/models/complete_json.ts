/**
 * One JSON completion from a model: a chat-completions request with no tools,
 * asking for JSON held to a schema (or plain JSON mode), and the answer's JSON
 * or why there is none — in the words the batch stages decide on: try again
 * later (`ModelUnavailableError`), a person must change something
 * (`ModelRefusedError`), or the answer is not what was asked
 * (`ModelAnswerError`, with what it said, for one repair).
 *
 * Plain `fetch` rather than the `openai` client: one endpoint, one request
 * shape, no streaming; a body read within a bound, a deadline of its own, and
 * every failure said in Sync's words, which a client's own retries, errors
 * and Node shims would stand between.
 *
 * @module
 */
import { ModelAnswerError, ModelRefusedError, ModelUnavailableError } from "../errors.ts";
import { readBodyAtMost } from "../internal/read_body_at_most.ts";
import type { ResolvedModel } from "./model_definitions.ts";

/** One message of the conversation sent. */
export interface ModelMessage {
  /** Who says it. */
  role: "system" | "user" | "assistant";
  /** What is said. */
  content: string;
}

/** What {@linkcode completeJson} asks. */
export interface JsonRequest {
  /** The messages: stable instructions first, what changes last (so a prefix cache can hit). */
  messages: ModelMessage[];
  /** The JSON Schema the answer is held to, where the endpoint offers it. */
  schema: Record<string, unknown>;
  /** The schema's name, as the endpoint shows it: letters, digits, `_` and `-`. */
  schemaName: string;
}

/** What the model answered. */
export interface JsonAnswer {
  /** The JSON it answered, parsed. */
  value: unknown;
  /** Tokens it counted, when it said. */
  usage: { prompt: number; completion: number } | null;
}

/** Options of {@linkcode completeJson}. */
export interface CompleteJsonOptions {
  /** Performs the request; the global `fetch` when absent. */
  fetch?: typeof fetch;
  /** How long the whole answer may take, in ms; 120 s by default. */
  timeoutMs?: number;
  /** The most an answer's body may hold, in bytes; 1 MiB by default. */
  maxAnswerBytes?: number;
  /** Aborts the request (the run was called off). */
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * Asks `model` for one JSON completion.
 *
 * @param model The model, with its key.
 * @param request The messages and the schema.
 * @param options The fetch, the deadline and the answer's bound.
 * @returns The answer's JSON.
 * @throws {ModelUnavailableError} when the endpoint is not reached, answers late, drops the
 *   connection, or answers 429 or 5xx.
 * @throws {ModelRefusedError} when it refuses the key (401, 403), the model or the request (4xx).
 * @throws {ModelAnswerError} when the answer holds no JSON, or JSON that does not parse, or is cut
 *   off at its length, or is larger than `maxAnswerBytes`.
 *
 * @example
 * ```ts
 * const model = await resolveModel(kv, "ollama");
 * const { value } = await completeJson(model, {
 *   messages: [{ role: "system", content: "Answer {\"ok\": true}." }],
 *   schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
 *   schemaName: "ok",
 * });
 * ```
 */
export async function completeJson(
  model: ResolvedModel,
  request: JsonRequest,
  options: CompleteJsonOptions = {},
): Promise<JsonAnswer> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const where = `the model ${model.name} (${model.model} at ${model.baseUrl})`;
  const late = () =>
    new ModelUnavailableError(
      `${where} did not answer within ${
        timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`
      }; it is asked again later`,
    );
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(model.key ? { authorization: `Bearer ${model.key}` } : {}),
      },
      body: JSON.stringify(requestBody(model, request)),
      signal,
      redirect: "manual",
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (deadline.aborted) throw late();
    throw new ModelUnavailableError(
      `${where} could not be reached (${messageOf(error)}); is it running? It is asked again later`,
    );
  }
  let body: string;
  try {
    body = await boundedText(response, options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES, where);
  } catch (error) {
    if (error instanceof ModelAnswerError) throw error;
    if (options.signal?.aborted) throw options.signal.reason;
    if (deadline.aborted) throw late();
    throw new ModelUnavailableError(
      `${where} dropped its answer half-way (${messageOf(error)}); it is asked again later`,
    );
  }
  if (!response.ok) throw statusError(where, response, body);
  return answerOf(where, body);
}

/** The request's body: the model, the messages, JSON asked for, no tools, no sampling. */
function requestBody(model: ResolvedModel, request: JsonRequest): Record<string, unknown> {
  const format = model.output === "json_schema"
    ? {
      type: "json_schema",
      json_schema: { name: request.schemaName, schema: request.schema, strict: true },
    }
    : { type: "json_object" };
  return {
    model: model.model,
    messages: request.messages,
    temperature: 0,
    stream: false,
    response_format: format,
  };
}

/** The error an answer that is not 2xx stands for. */
function statusError(where: string, response: Response, body: string): Error {
  const said = reasonOf(body);
  const status = `${response.status}${said ? `: ${said}` : ""}`;
  if (response.status === 429) {
    const wait = retryAfterMs(response.headers.get("retry-after"));
    return new ModelUnavailableError(
      `${where} is busy (${status}); it is asked again ${
        wait === null ? "later" : `in ${Math.ceil(wait / 1000)} s`
      }`,
      wait,
    );
  }
  if (response.status >= 500) {
    return new ModelUnavailableError(`${where} failed (${status}); it is asked again later`);
  }
  if (response.status === 401 || response.status === 403) {
    return new ModelRefusedError(
      `${where} refused its key (${status}); give the model a key it takes`,
    );
  }
  if (response.status >= 300 && response.status < 400) {
    return new ModelRefusedError(
      `${where} answered a redirect (${response.status}), which is not followed; give its ` +
        `base URL as the endpoint answers it`,
    );
  }
  return new ModelRefusedError(
    `${where} refused the request (${status}); check the model's name and base URL`,
  );
}

/** The JSON in a 2xx answer's first choice. */
function answerOf(where: string, body: string): JsonAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ModelAnswerError(
      `${where} answered something that is not a chat completion`,
      body,
    );
  }
  const choice = (parsed as { choices?: unknown[] })?.choices?.[0] as
    | { message?: { content?: unknown }; finish_reason?: unknown }
    | undefined;
  const content = choice?.message?.content;
  if (typeof content !== "string" || content.trim() === "") {
    throw new ModelAnswerError(`${where} answered no text`, "");
  }
  if (choice?.finish_reason === "length") {
    throw new ModelAnswerError(`${where} was cut off at its length before its JSON ended`, content);
  }
  let value: unknown;
  try {
    value = JSON.parse(stripFence(content));
  } catch (error) {
    throw new ModelAnswerError(
      `${where} answered text that is not JSON (${messageOf(error)})`,
      content,
    );
  }
  const usage = (parsed as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } })
    .usage;
  return {
    value,
    usage: typeof usage?.prompt_tokens === "number" && typeof usage.completion_tokens === "number"
      ? { prompt: usage.prompt_tokens, completion: usage.completion_tokens }
      : null,
  };
}

/** JSON mode's answer inside a Markdown fence, as some local models give it, without the fence. */
function stripFence(content: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(content);
  return fenced ? fenced[1] : content;
}

/** The body's text, refused past `max` bytes as they arrive. */
async function boundedText(response: Response, max: number, where: string): Promise<string> {
  const body = await readBodyAtMost(response, max);
  if (body === null) throw new ModelAnswerError(`${where} answered more than ${max} bytes`);
  return body;
}

/** What an error body says, in one short line. */
function reasonOf(body: string): string {
  let said = body;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string };
    const error = parsed.error;
    said = typeof error === "string"
      ? error
      : typeof error?.message === "string"
      ? error.message
      : body;
  } catch { /* not JSON: the text as it is */ }
  return said.replace(/\s+/g, " ").trim().slice(0, 200);
}

/** `Retry-After` in ms: seconds, or an HTTP date; null when absent or unreadable. */
function retryAfterMs(value: string | null): number | null {
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
