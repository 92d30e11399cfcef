/**
 * `net.fetch` for handlers: performed by the host, only to hosts the package
 * declared as `net:<host>`, with a timeout and a size cap.
 *
 * @module
 */
import { InvalidInputError, PayloadTooLargeError, PermissionDeniedError } from "../../errors.ts";
import type { NetRequest, NetResponse } from "../../extension_api/service.ts";

/** Options for {@linkcode netFetch}. */
export interface NetFetchOptions {
  /** The package whose handler asks; a refusal names it. */
  packageId: string;
  /**
   * Hosts from the manifest's `net:<host>` permissions. A host declared with
   * a port (`localhost:8080`) is reached on that port only; one without, on
   * its scheme's default port only.
   */
  hosts: readonly string[];
  /** How long the request may take, in milliseconds, before it is aborted. */
  timeoutMs: number;
  /** The largest response body taken, in bytes; a longer one fails the request. */
  maxBytes: number;
  /** Performs the request; the global `fetch` when absent. */
  fetch?: typeof fetch;
  /** Stops the request when the handler call it was made for ends. */
  signal?: AbortSignal;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * Performs a request for a handler.
 *
 * @throws {PermissionDeniedError} when the URL's host is not declared.
 * @throws {InvalidInputError} for a malformed request.
 * @throws {PayloadTooLargeError} when the response body passes the cap.
 */
export async function netFetch(request: unknown, options: NetFetchOptions): Promise<NetResponse> {
  const req: NetRequest = typeof request === "string" ? { url: request } : request as NetRequest;
  if (!req || typeof req.url !== "string") {
    throw new InvalidInputError("net.fetch() needs { url } or a URL string");
  }
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw new InvalidInputError(`net.fetch(): "${req.url}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidInputError(
      `net.fetch(): only http and https URLs are fetched, not ${url.protocol}`,
    );
  }
  if (!allowed(url, options.hosts)) {
    throw new PermissionDeniedError(
      `net.fetch() to ${url.host} needs the net:${url.host} permission, which ${options.packageId} does not declare`,
    );
  }
  const method = (req.method ?? "GET").toUpperCase();
  if (!METHODS.has(method)) {
    throw new InvalidInputError(`net.fetch(): method ${method} is not supported`);
  }
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(url, {
      method,
      headers: req.headers,
      body: req.body,
      // A redirect could lead to an undeclared host; the handler sees it instead.
      redirect: "manual",
      signal: options.signal
        ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal])
        : AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError"
      ? `no answer within ${options.timeoutMs} ms`
      : options.signal?.aborted
      ? "the handler call it was made for ended"
      : (error as Error).message;
    throw new InvalidInputError(`net.fetch() to ${url.host} failed: ${reason}`);
  }
  const body = await readCapped(response, options.maxBytes, url.host);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => headers[name] = value);
  return { status: response.status, headers, body };
}

function allowed(url: URL, hosts: readonly string[]): boolean {
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  return hosts.some((host) => {
    const [name, port] = host.split(":");
    if (name !== hostname) return false;
    // A host declared without a port is reached on its scheme's default port only.
    return port ? url.port === port : url.port === "";
  });
}

async function readCapped(response: Response, maxBytes: number, host: string): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new PayloadTooLargeError(
        `net.fetch() from ${host} answered more than ${maxBytes} bytes; the limit is ${maxBytes}`,
      );
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder().decode(all);
}
