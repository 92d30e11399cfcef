/**
 * `account.fetch`: a request to the device's remote account, performed as
 * `net.fetch` performs one (`net_fetch.ts`: the same checks of where it goes,
 * the same time and size limits), but only to the account's origin, with
 * the credential added by the host: the isolate never holds it. Its
 * failures are said in the words a task's runner acts on.
 *
 * @module
 */
import {
  InvalidInputError,
  NetworkError,
  PermissionDeniedError,
  SignInError,
  TransientError,
  UnknownOutcomeError,
} from "../../errors.ts";
import type { NetRequest, NetResponse } from "../../extension_api/service.ts";
import { netFetch, type NetFetchOptions } from "./net_fetch.ts";

/** Methods that change nothing: a failed one is simply tried again. */
const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** The remote account a request goes to. */
export interface RemoteAccount {
  /** `https://host[:port]`, as the person connected it. */
  origin: string;
  /** Sent as `Authorization: Bearer <credential>`. */
  credential: string;
}

/**
 * Performs a handler's request to its remote account.
 *
 * @param request A path on the origin (`/api/items`), a URL on it, or `{ url, method?, headers?, body? }`.
 * @param account The origin and the credential.
 * @param options As `net.fetch`'s, but for the hosts, which are the origin's.
 * @throws {PermissionDeniedError} for a URL on another origin.
 * @throws {InvalidInputError} for a malformed request.
 * @throws {SignInError} when the origin answers 401 or 403.
 * @throws {TransientError} when a GET or HEAD gets no answer or 5xx, or any request 429.
 * @throws {UnknownOutcomeError} when another method gets no answer.
 * @throws {PayloadTooLargeError} when the answer passes its caps.
 */
export async function accountFetch(
  request: unknown,
  account: RemoteAccount,
  options: Omit<NetFetchOptions, "hosts">,
): Promise<NetResponse> {
  const req: NetRequest = typeof request === "string" ? { url: request } : request as NetRequest;
  if (!req || typeof req !== "object" || typeof req.url !== "string") {
    throw new InvalidInputError(
      "account.fetch() needs a path on the account's origin, a URL on it, or { url, method?, headers?, body? }",
    );
  }
  const origin = new URL(account.origin);
  let url: URL;
  try {
    url = new URL(req.url, origin);
  } catch {
    throw new InvalidInputError(`account.fetch(): "${req.url}" is neither a path nor a URL`);
  }
  if (url.origin !== origin.origin) {
    throw new PermissionDeniedError(
      `account.fetch() reaches only the account's origin ${origin.origin}, not ${url.origin}; ` +
        `use net.fetch (with a net: permission) for other hosts`,
    );
  }
  // A user name in the URL is sent as a second Authorization beside the host's.
  if (url.username !== "" || url.password !== "") {
    throw new InvalidInputError(
      `account.fetch(): the URL carries a user name or password; the host adds the account's ` +
        `credential itself: give the path alone, such as "${url.pathname}"`,
    );
  }
  const method = (req.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    // The credential is the host's to add; a handler's own is never sent beside it.
    if (name.toLowerCase() !== "authorization") headers[name] = String(value);
  }
  // Checked here, not by the HTTP client: its refusal would read as no answer
  // (a retry, or a POST parked as unknown) though nothing was sent.
  try {
    new Headers(headers);
  } catch (error) {
    throw new InvalidInputError(
      `account.fetch(): the request's headers cannot be sent: ${(error as Error).message}`,
    );
  }
  try {
    headers["authorization"] = new Headers({
      authorization: `Bearer ${account.credential}`,
    }).get("authorization")!;
  } catch {
    // The client's refusal would quote the header, credential and all.
    throw new SignInError(
      `the account's credential cannot be sent in a header (it holds a line break or another ` +
        `character a header cannot carry): connect the account again with the credential alone`,
    );
  }
  let response: NetResponse;
  try {
    response = await netFetch({ ...req, url: url.href, method, headers }, {
      ...options,
      hosts: [url.host],
    });
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    if (SAFE_METHODS.has(method)) {
      throw new TransientError(`account.fetch() ${error.message}; it is tried again later`);
    }
    throw new UnknownOutcomeError(
      `account.fetch() sent ${method} ${url.pathname} to ${url.host} and got no answer ` +
        `(${error.message}): whether it was done is unknown, so it is not sent again; ` +
        `a person should look at the account and review the run`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    throw new SignInError(
      `${url.host} refused the account's credential (${response.status}): sign in again`,
    );
  }
  // 429 says the request was refused before it was acted on: trying it later is safe.
  if (response.status === 429 || (response.status >= 500 && SAFE_METHODS.has(method))) {
    throw new TransientError(
      `${url.host} answered ${response.status} to ${method} ${url.pathname}; ` +
        `it is tried again later`,
    );
  }
  return response;
}
