/**
 * `net.fetch` for handlers: performed by the host, only to hosts the package
 * declared as `net:<host>`, never through a declared name to an address of
 * this machine or its networks, with a timeout and a size cap.
 *
 * @module
 */
import { isIP } from "node:net";
import {
  InvalidInputError,
  NetworkError,
  PayloadTooLargeError,
  PermissionDeniedError,
} from "../../errors.ts";
import type { NetRequest, NetResponse } from "../../extension_api/service.ts";
import { specialAddressKind, UNSPECIFIED_ADDRESS } from "./_special_address.ts";
import { type ResolveHost, resolveHost } from "./resolve_host.ts";
import { readBodyAtMost } from "../../internal/read_body_at_most.ts";

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
  /** The largest response body taken, in bytes as they arrive; a longer one fails the request. */
  maxBytes: number;
  /** Largest response headers, names and values together, in bytes. */
  maxHeaderBytes: number;
  /** Performs the request; the global `fetch` when absent. */
  fetch?: typeof fetch;
  /** Finds the addresses a declared name has; the system resolver when absent. */
  resolve?: ResolveHost;
  /** Stops the request when the handler call it was made for ends. */
  signal?: AbortSignal;
}

/**
 * The longest JSON the answer of a request within these limits can be: every
 * byte of body or header may become six characters of JSON (a control byte
 * is written `\u0001`), each header adds its quotes, colon and comma, and the
 * answer's own fields a few more. The host lets an answer this long cross to
 * the isolate, so that the body's limit is the body's and not its JSON's.
 *
 * @param maxBytes The body's limit.
 * @param maxHeaderBytes The headers' limit.
 */
export function maxNetFetchAnswerBytes(maxBytes: number, maxHeaderBytes: number): number {
  return 6 * maxBytes + 12 * maxHeaderBytes + 64;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * Performs a request for a handler.
 *
 * A name is resolved first, and refused when any address it has is one of
 * this machine, its local network or its cloud provider (loopback, private,
 * shared, link-local, the metadata address, unspecified) unless the package
 * declares that address itself, on the same port. An `http:` request then
 * goes to the address that was checked, so the name cannot resolve elsewhere
 * in between; an `https:` one is bound to the name by its certificate.
 *
 * @throws {PermissionDeniedError} when the URL's host is not declared, or
 *   resolves to an address the package does not declare, or is (or resolves
 *   to) an unspecified address, which no declaration allows.
 * @throws {InvalidInputError} for a malformed request, headers that cannot be sent among them.
 * @throws {NetworkError} when the name does not resolve or the host does not answer.
 * @throws {PayloadTooLargeError} when the response's body or headers pass their cap.
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
  refuseUnspecified(url, url.hostname.replace(/^\[|\]$/g, ""));
  const method = (req.method ?? "GET").toUpperCase();
  if (!METHODS.has(method)) {
    throw new InvalidInputError(`net.fetch(): method ${method} is not supported`);
  }
  // Checked here, not by the HTTP client: its refusal would read as a host
  // that could not be reached, though nothing was sent.
  try {
    new Headers(req.headers);
  } catch (error) {
    throw new InvalidInputError(
      `net.fetch(): the request's headers cannot be sent: ${(error as Error).message}`,
    );
  }
  const signal = options.signal
    ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal])
    : AbortSignal.timeout(options.timeoutMs);
  const address = await checkedAddress(url, options, signal);
  // Plain HTTP goes to the address just checked, naming the host in its Host
  // header; TLS is left to connect by name, where only a server holding a
  // certificate for that name can answer.
  const pinned = url.protocol === "http:" && address !== undefined;
  const client = pinned ? Deno.createHttpClient({ allowHost: true }) : undefined;
  try {
    return await exchange(url, req, method, { ...options, signal, address, client });
  } finally {
    client?.close();
  }
}

interface Exchange extends NetFetchOptions {
  signal: AbortSignal;
  /** The checked address to send to instead of the name, when pinned. */
  address: string | undefined;
  /** Lets the request name its own Host; present exactly when pinned. */
  client: Deno.HttpClient | undefined;
}

/** Sends the request and reads its answer within the caps. */
async function exchange(
  url: URL,
  req: NetRequest,
  method: string,
  options: Exchange,
): Promise<NetResponse> {
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    let target = url;
    let headers: HeadersInit | undefined = req.headers;
    if (options.client && options.address !== undefined) {
      target = addressed(url, options.address);
      const named = new Headers(req.headers);
      // The server is asked for the declared host, whatever the handler set.
      named.set("host", url.host);
      headers = named;
    }
    response = await doFetch(target, {
      method,
      headers,
      body: req.body,
      // A redirect could lead to an undeclared host; the handler sees it instead.
      redirect: "manual",
      signal: options.signal,
      ...(options.client ? { client: options.client } : {}),
    });
  } catch (error) {
    throw fetchFailure(error as Error, url.host, options);
  }
  // Gathered in a Map and made an object by defining each name, so a
  // header named `__proto__` is kept like any other.
  const received = new Map<string, string>();
  let headerBytes = 0;
  response.headers.forEach((value, name) => {
    received.set(name, value);
    headerBytes += name.length + value.length;
  });
  const headers: Record<string, string> = Object.fromEntries(received);
  if (headerBytes > options.maxHeaderBytes) {
    await response.body?.cancel();
    throw new PayloadTooLargeError(
      `net.fetch() from ${url.host} answered headers of ${headerBytes} bytes; ` +
        `the limit is ${options.maxHeaderBytes}`,
    );
  }
  const body = await readCapped(response, options.maxBytes, url.host);
  return { status: response.status, headers, body };
}

/**
 * The address a declared name resolves to, once every address it has is
 * one the package may reach; undefined when the URL names an address, which
 * its declaration names exactly.
 */
async function checkedAddress(
  url: URL,
  options: NetFetchOptions,
  signal: AbortSignal,
): Promise<string | undefined> {
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(hostname) !== 0) return undefined;
  let addresses: string[];
  try {
    addresses = await untilAborted((options.resolve ?? resolveHost)(hostname), signal);
  } catch (error) {
    if (signal.aborted) throw fetchFailure(signal.reason as Error, url.host, options);
    throw new NetworkError(unresolved(url.host, (error as Error).message));
  }
  if (addresses.length === 0) {
    throw new NetworkError(
      `could not reach ${url.host} (no such host: ${hostname} has no address)`,
    );
  }
  for (const address of addresses) {
    refuseUnspecified(url, address);
    const kind = specialAddressKind(address);
    if (kind === undefined) continue;
    // net: names IPv4 addresses only, so no declaration names an IPv6 one.
    if (!address.includes(":") && declares(options.hosts, address, url.port)) continue;
    const declare = address.includes(":")
      ? "a net: permission cannot name an IPv6 address; fetch it by an IPv4 address the package declares"
      : `declare net:${url.port ? `${address}:${url.port}` : address} to allow it`;
    throw new PermissionDeniedError(
      `net.fetch() cannot fetch ${url.origin}/: ${hostname} resolves to ${address}, ${kind}; ` +
        declare,
    );
  }
  return addresses[0];
}

/**
 * Refuses an unspecified address (0.0.0.0, `::`) as where a request goes,
 * declared or not: sent there, a connection reaches this machine, whatever
 * listens on its loopback, though the declaration names no loopback address.
 */
function refuseUnspecified(url: URL, address: string): void {
  if (specialAddressKind(address) !== UNSPECIFIED_ADDRESS) return;
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const what = address === hostname ? `${hostname} is` : `${hostname} resolves to ${address},`;
  const port = url.port ? `:${url.port}` : "";
  throw new PermissionDeniedError(
    `net.fetch() cannot fetch ${url.origin}/: ${what} an unspecified address; as a destination ` +
      `it is this machine, which no net: permission names so: to reach a server on this ` +
      `machine, declare net:127.0.0.1${port} and fetch that`,
  );
}

/** `promise`, or the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/**
 * Why a request got no answer, as the error the handler is given: an answer
 * whose head is past what the HTTP client reads (about 100 headers) is a
 * `PayloadTooLargeError` like any answer past the header limit; anything
 * else is a `NetworkError` with the client's own last words.
 */
function fetchFailure(
  error: Error,
  host: string,
  options: NetFetchOptions,
): Error {
  if (error.name === "TimeoutError") {
    return new NetworkError(
      `could not reach ${host} (no answer within ${options.timeoutMs} ms)`,
    );
  }
  if (options.signal?.aborted) {
    return new NetworkError(
      `stopped fetching from ${host}: the handler call it was made for ended`,
    );
  }
  // The client's cause ends with what went wrong ("…: connection refused").
  const cause = error.cause instanceof Error ? error.cause.message : "";
  const detail = cause.slice(cause.lastIndexOf(": ") + 1).trim();
  if (/message head is too large|too many headers/i.test(detail)) {
    return new PayloadTooLargeError(
      `net.fetch() from ${host} answered more headers than are read (at most about 100, ` +
        `and ${options.maxHeaderBytes} bytes of names and values)`,
    );
  }
  return new NetworkError(`could not reach ${host} (${inWords(detail || error.message)})`);
}

/** What a failed name lookup said (`getaddrinfo ENOTFOUND …`), as a person reads it. */
function unresolved(host: string, said: string): string {
  if (/ENOTFOUND|not known|no such host|NXDOMAIN/i.test(said)) {
    return `could not reach ${host} (no such host)`;
  }
  if (/EAI_AGAIN|temporary failure/i.test(said)) {
    return `could not reach ${host} (its name could not be looked up: is this machine online?)`;
  }
  return `could not reach ${host} (its name could not be looked up: ${said})`;
}

/**
 * The common ways a connection fails, in words: what the HTTP client said
 * names the system's error, which few people know by its code.
 */
const FAILURE_WORDS: readonly (readonly [RegExp, string])[] = [
  [/dns error|failed to lookup|not known|ENOTFOUND|no such host/i, "no such host"],
  [/connection refused|ECONNREFUSED/i, "it refused the connection: is the server running?"],
  [/connection reset|ECONNRESET|broken pipe/i, "the connection was cut off"],
  [/timed out|ETIMEDOUT/i, "no answer in time"],
  [
    /network is unreachable|no route to host|ENETUNREACH|EHOSTUNREACH/i,
    "no route to it: is this machine online?",
  ],
  [/certificate|tls|ssl|handshake/i, "its secure connection could not be set up"],
];

function inWords(detail: string): string {
  const found = FAILURE_WORDS.find(([pattern]) => pattern.test(detail));
  if (!found) return detail;
  return /certificate|tls|ssl|handshake/i.test(detail) ? `${found[1]}: ${detail}` : found[1];
}

function allowed(url: URL, hosts: readonly string[]): boolean {
  return declares(hosts, url.hostname.replace(/^\[|\]$/g, ""), url.port);
}

/** Whether `hosts` names `hostname` on `port` (`""`: the scheme's default port). */
function declares(hosts: readonly string[], hostname: string, port: string): boolean {
  return hosts.some((host) => {
    const [name, declared] = host.split(":");
    if (name !== hostname) return false;
    // A host declared without a port is reached on its scheme's default port only.
    return declared ? port === declared : port === "";
  });
}

/**
 * `url` with its host replaced by `address`, port, path and query kept.
 *
 * @throws {TypeError} for an address a URL cannot carry (an IPv6 zone).
 */
function addressed(url: URL, address: string): URL {
  const host = address.includes(":") ? `[${address}]` : address;
  return new URL(
    `${url.pathname}${url.search}`,
    `${url.protocol}//${host}${url.port ? `:${url.port}` : ""}`,
  );
}

async function readCapped(response: Response, maxBytes: number, host: string): Promise<string> {
  const body = await readBodyAtMost(response, maxBytes);
  if (body === null) {
    throw new PayloadTooLargeError(
      `net.fetch() from ${host} answered a body of more than ${maxBytes} bytes; ` +
        `the limit is ${maxBytes}`,
    );
  }
  return body;
}
