/**
 * How `net.fetch` learns the addresses a declared name has before it
 * connects: the system's own resolver, the one `fetch` itself uses.
 *
 * @module
 */
import { lookup } from "node:dns/promises";

/**
 * Answers every address a host name has (IPv4 and IPv6, as text), or
 * rejects when it has none. `net.fetch` takes one as an effect, so a test
 * can say what a name resolves to without changing the machine.
 */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/**
 * Every address the system resolver gives a name: the hosts file and the
 * DNS, as `getaddrinfo` answers them, in its order.
 *
 * @param hostname A DNS name, without brackets or port.
 * @throws {Error} when the name does not resolve (`getaddrinfo ENOTFOUND …`).
 * @example
 * ```ts
 * await resolveHost("localhost"); // ["127.0.0.1"], or with "::1" too
 * ```
 */
export async function resolveHost(hostname: string): Promise<string[]> {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}
