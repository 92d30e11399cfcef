/**
 * What each permission means, in the words the install card uses.
 *
 * @module
 */

import { PROCESS_PERMISSION_PREFIX } from "./approvable_permissions.ts";

/**
 * The install card's sentence for one permission, so a person knows what they approve.
 *
 * @param permission A permission as a manifest declares it, such as `schedule` or
 *   `net:api.example.com`, or the entry of a declared program (`process:<id> <command line>`).
 * @returns The sentence, after the package's name; `unknown permission` for one the host does not know.
 * @example
 * ```ts
 * describePermission("net:api.example.com");
 * // "may reach api.example.com over the network, through the host"
 * describePermission("process:lsp typescript-language-server --stdio");
 * // "full user access: may run typescript-language-server --stdio as you, …"
 * ```
 */
export function describePermission(permission: string): string {
  if (permission.startsWith(PROCESS_PERMISSION_PREFIX)) {
    const command = permission.slice(permission.indexOf(" ") + 1);
    return `full user access: may run ${command} as you, and that program may read, change ` +
      `and send anything you can`;
  }
  if (permission.startsWith("net:")) {
    return `may reach ${permission.slice(4)} over the network, through the host`;
  }
  switch (permission) {
    case "background":
      return "may run handlers when nobody is looking";
    case "schedule":
      return "may ask the clock to run its handlers on an interval";
    case "work.agent":
      return "may order agent sessions, which spend your agent's tokens, even while you are away";
    case "host.processes":
      return "may start the programs it declares on this machine, each with full user access";
    case "account.folder":
      return "may read a folder you connect, read-only";
    case "account.remote":
      return "may reach the host you connect, with the credential you give";
    default:
      return "unknown permission";
  }
}
