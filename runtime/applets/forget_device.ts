/**
 * What removing a package from a project forgets of its device: the
 * account and its credential, the consent, the device's state, its tasks
 * and their attempts. The records it read stay, as every package's do.
 *
 * @module
 */
import {
  accountCredentialKey,
  accountKey,
  consentKey,
  deviceKey,
  taskAttemptsPrefix,
  tasksPrefix,
} from "./keys.ts";
import { deleteAll } from "./_delete_all.ts";
import { bumpAccountEpoch } from "../memory/mod.ts";

/**
 * Forgets a package's device in a project.
 *
 * @param kv The installation's KV.
 * @param memoryKv The project's memory KV: the epoch moves on, fencing a run going now.
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export async function forgetDevice(
  kv: Deno.Kv,
  memoryKv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<void> {
  await kv.atomic()
    .delete(accountKey(project, pkg))
    .delete(accountCredentialKey(project, pkg))
    .delete(consentKey(project, pkg))
    .delete(deviceKey(project, pkg))
    .commit();
  await bumpAccountEpoch(memoryKv, pkg);
  await deleteAll(kv, tasksPrefix(project, pkg));
  await deleteAll(kv, taskAttemptsPrefix(project, pkg));
}
