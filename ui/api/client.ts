/**
 * The app's calls to the API: JSON in, JSON out, and an {@linkcode ApiError}
 * carrying the server's own words when a route refuses. The cookie set from
 * the printed address goes with every call; a call that changes something
 * carries this page's Origin, which the server checks.
 *
 * @module
 */
import type { ErrorResponse } from "../../runtime/web/api/types.ts";

/** A refusal or failure of the API, with the message the server gave. */
export class ApiError extends Error {
  /** The HTTP status; 0 when the server could not be reached. */
  readonly status: number;
  /** The server's name for the error, such as `NotFoundError`, when it gave one. */
  readonly errorName: string | undefined;
  /** The whole answer as JSON, for a route that says more than the message; null when none. */
  readonly body: unknown;

  /**
   * @param message What went wrong, in the server's words when it gave some.
   * @param status The HTTP status, or 0 when unreachable.
   * @param errorName The server's name for the error, when it gave one.
   * @param body The answer as JSON, when it was.
   */
  constructor(message: string, status: number, errorName?: string, body: unknown = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.errorName = errorName;
    this.body = body;
  }
}

/** Query parameters: absent values are left out. */
export type Query = Record<string, string | number | undefined>;

/** The URL of an API path with its query. */
export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** GETs a JSON answer. */
export function getJson<T>(path: string, query: Query = {}): Promise<T> {
  return send<T>(apiUrl(path, query), { method: "GET" });
}

/** POSTs a JSON body and reads the JSON answer. */
export function postJson<T>(path: string, body: unknown): Promise<T> {
  return send<T>(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** What a call that Sync did not answer says; the window comes back by itself once Sync answers. */
const NOT_ANSWERING =
  "Sync is not answering. Is deno task serve still running? Start it again; this window comes back by itself.";

/** Whether an error line says only that Sync did not answer (so it goes once Sync answers again). */
export function notAnswering(message: string | null): boolean {
  return message === NOT_ANSWERING;
}

/** Sends a request; a refusal becomes an {@linkcode ApiError} with the server's message. */
export async function send<T>(url: string, init: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, credentials: "same-origin" });
  } catch {
    throw new ApiError(NOT_ANSWERING, 0);
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: the status says enough below.
  }
  if (!response.ok) {
    const said = (body as ErrorResponse | null)?.error;
    const name = (body as ErrorResponse | null)?.name;
    throw new ApiError(
      typeof said === "string" ? said : `${init.method} ${url} failed: HTTP ${response.status}`,
      response.status,
      typeof name === "string" ? name : undefined,
      body,
    );
  }
  return body as T;
}

/** The message to show for anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
