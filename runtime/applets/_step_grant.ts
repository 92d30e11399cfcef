/**
 * The grant a task step runs with: the one place the credential is read.
 * Private to the applets' folder; nothing else answers the credential.
 *
 * @module
 */
import type { AccountGrant } from "../host/mod.ts";
import { accountCredentialKey, accountKey } from "./keys.ts";
import type { Account, StoredCredential } from "./account.ts";
import { readAccountEpoch } from "../memory/mod.ts";

/**
 * The account grant of a device for one attempt, or null when no account is
 * connected (or a remote one lost its credential). The epoch is read before
 * the account: a change of account writes the account first and then moves
 * the epoch on, so a grant can pair a new account with an old epoch (and be
 * fenced), never an old account with the new epoch.
 *
 * @param kv The installation's KV.
 * @param memoryKv The project's memory KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export async function stepGrant(
  kv: Deno.Kv,
  memoryKv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<AccountGrant | null> {
  const epoch = await readAccountEpoch(memoryKv, pkg);
  const [account, credential] = await kv.getMany<[Account, StoredCredential]>([
    accountKey(project, pkg),
    accountCredentialKey(project, pkg),
  ]);
  const value = account.value;
  if (!value) return null;
  if (value.kind === "folder") return { id: value.id, epoch, kind: "folder", folder: value.folder };
  if (credential.value?.accountId !== value.id) return null;
  return {
    id: value.id,
    epoch,
    kind: "remote",
    origin: value.origin,
    credential: credential.value.credential,
  };
}
