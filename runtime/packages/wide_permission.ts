/**
 * Which permissions reach past what the host itself guards, so the install
 * card sets them apart in a warning tier and never makes approving them the
 * default action:
 *
 * - a program declared under `host.processes` (and `host.processes` itself)
 *   runs as the person, with full user access: it may read, change and send
 *   anything they can;
 * - `net:<host>` naming this machine or the local network (loopback,
 *   private, link-local addresses, `localhost`, `.local` names) reaches
 *   servers that usually trust whoever asks from inside.
 *
 * `net:<host>` wildcards do not exist (check refuses them) and the isolate
 * has no filesystem, so nothing else reaches that far.
 *
 * @module
 */
import { PROCESS_PERMISSION_PREFIX } from "./approvable_permissions.ts";

/**
 * Whether approving `permission` hands a package more than the host's own
 * reach (see the module's list).
 *
 * @param permission A permission as a manifest declares it, or a declared program's entry.
 * @example
 * ```ts
 * isWidePermission("process:tail tail -F log"); // true
 * isWidePermission("net:127.0.0.1:8080"); // true
 * isWidePermission("net:api.example.com"); // false
 * ```
 */
export function isWidePermission(permission: string): boolean {
  if (permission === "host.processes" || permission.startsWith(PROCESS_PERMISSION_PREFIX)) {
    return true;
  }
  if (!permission.startsWith("net:")) return false;
  const host = permission.slice("net:".length).replace(/:\d+$/, "");
  return isLocalHost(host);
}

/** A name or IPv4 address on this machine or the local network. */
function isLocalHost(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local")) return true;
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return false;
  const [a, b] = parts.map(Number);
  return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31) ||
    (a === 169 && b === 254);
}
