/**
 * The consent to process a device's private content: the person's third
 * decision, apart from install and the account. It names the endpoint the
 * content goes to, and is revocable; nothing is granted by installing or
 * connecting.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";
import { APPLET_LIMITS } from "../limits.ts";
import { consentKey } from "./keys.ts";

/** A person's consent: where the content may go, and when it was given. */
export interface Consent {
  /** The named endpoint the device's content is processed by. */
  endpoint: string;
  /** When the consent was given, in ms. */
  grantedAt: number;
}

/** Options for {@linkcode grantConsent}. */
export interface GrantConsentOptions {
  /** The time, in ms. */
  now: () => number;
}

/**
 * Grants the consent to process a device's content at a named endpoint,
 * replacing an earlier one.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param endpoint The endpoint the content goes to.
 * @param options The time.
 * @throws {InvalidInputError} when the endpoint is empty or too long.
 */
export async function grantConsent(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  endpoint: string,
  options: GrantConsentOptions,
): Promise<Consent> {
  if (typeof endpoint !== "string" || endpoint.trim() === "") {
    throw new InvalidInputError(
      `Cannot allow ${pkg}'s content to be processed: name the endpoint it goes to`,
    );
  }
  if (endpoint.length > APPLET_LIMITS.maxEndpointChars) {
    throw new InvalidInputError(
      `Cannot allow ${pkg}'s content to be processed: the endpoint's name is longer than ` +
        `${APPLET_LIMITS.maxEndpointChars} characters`,
    );
  }
  const consent: Consent = { endpoint: endpoint.trim(), grantedAt: options.now() };
  const key = consentKey(project, pkg);
  while (true) {
    const before = await kv.get(key);
    if ((await kv.atomic().check(before).set(key, consent).commit()).ok) return consent;
  }
}

/**
 * Revokes the consent; nothing of the device's content is processed after.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @returns Whether a consent was given.
 */
export async function revokeConsent(kv: Deno.Kv, project: string, pkg: string): Promise<boolean> {
  const key = consentKey(project, pkg);
  while (true) {
    const before = await kv.get(key);
    if ((await kv.atomic().check(before).delete(key).commit()).ok) return before.value !== null;
  }
}

/**
 * The consent given for a device, or null.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export async function readConsent(
  kv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<Consent | null> {
  return (await kv.get<Consent>(consentKey(project, pkg))).value;
}
