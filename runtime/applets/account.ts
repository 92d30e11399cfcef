/**
 * A device's account: what a person chose for it to read, connected apart
 * from install. A folder is read-only and bounded to itself; a remote
 * account is an origin with a credential the host adds to requests to it.
 * The credential is stored beside the account under its own key and is
 * answered by nothing here: only a task step's grant (`_step_grant.ts`)
 * reads it.
 *
 * Every change of account — connecting one, connecting another,
 * disconnecting — moves the package's account epoch on in the project's
 * memory, after the account is written, so a run that began under the old
 * account commits nothing.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { newId } from "../internal/id.ts";
import { APPLET_LIMITS } from "../limits.ts";
import { accountCredentialKey, accountKey } from "./keys.ts";
import { bumpAccountEpoch } from "../memory/mod.ts";
import type { DeviceDeclaration } from "./_device_declaration.ts";

/** A connected account as stored and shown: it never holds the credential. */
export type Account =
  | { id: string; kind: "folder"; folder: string; connectedAt: number }
  | { id: string; kind: "remote"; origin: string; connectedAt: number };

/** What the device view shows of an account: the account itself, which holds no credential. */
export type PublicAccount = Account;

/** What a person gives to connect an account. */
export type AccountInput =
  | { kind: "folder"; folder: string }
  | { kind: "remote"; origin: string; credential: string };

/** The stored credential of a remote account, tied to the account it was given with. */
export interface StoredCredential {
  /** The account the credential belongs to. */
  accountId: string;
  /** The credential itself. */
  credential: string;
}

/** Options for {@linkcode connectAccount}. */
export interface ConnectAccountOptions {
  /** The device the package declares: the account's kind must be the one it asks for. */
  device: DeviceDeclaration;
  /** The time, in ms. */
  now: () => number;
}

/**
 * Connects an account to a device, replacing the one connected before (a
 * change of account): the folder is resolved with its links followed and
 * must be a folder; a remote origin is `https://host[:port]`, or `http://`
 * to the loopback address only. The account gets a new id, and the epoch moves on.
 *
 * @param kv The installation's KV.
 * @param memoryKv The project's memory KV, where the account epoch is.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param input The folder, or the origin and credential.
 * @param options The device declared, and the time.
 * @returns The account as stored, without the credential.
 * @throws {InvalidInputError} when the device takes no account, another kind of account,
 *   or the folder, origin or credential is not one.
 */
export async function connectAccount(
  kv: Deno.Kv,
  memoryKv: Deno.Kv,
  project: string,
  pkg: string,
  input: AccountInput,
  options: ConnectAccountOptions,
): Promise<Account> {
  const what = `Cannot connect ${pkg}'s account`;
  const declared = options.device.account;
  if (!declared) {
    throw new InvalidInputError(
      `${what}: ${options.device.name} is a website and reads no account; open its link instead`,
    );
  }
  const kind = (input as { kind?: unknown })?.kind;
  if (kind !== declared.kind) {
    throw new InvalidInputError(
      // A dash, not parentheses: the description often holds parentheses of its own.
      `${what}: it reads a ${declared.kind} account — ${declared.description} — ` +
        `not ${
          kind === "folder" || kind === "remote" ? `a ${kind} one` : JSON.stringify(kind ?? null)
        }; ` +
        (declared.kind === "folder" ? "give a folder" : "give an origin and a credential"),
    );
  }
  const id = newId(options.now());
  const connectedAt = options.now();
  let account: Account;
  let credential: StoredCredential | null = null;
  if (input.kind === "folder") {
    account = { id, kind: "folder", folder: await accountFolder(what, input.folder), connectedAt };
  } else {
    account = { id, kind: "remote", origin: accountOrigin(what, input.origin), connectedAt };
    credential = { accountId: id, credential: accountCredential(what, input.credential) };
  }
  const key = accountKey(project, pkg);
  while (true) {
    const before = await kv.get(key);
    const atomic = kv.atomic().check(before).set(key, account);
    if (credential) atomic.set(accountCredentialKey(project, pkg), credential);
    else atomic.delete(accountCredentialKey(project, pkg));
    if ((await atomic.commit()).ok) break;
  }
  // After the write: a run that reads the new epoch reads the new account too.
  await bumpAccountEpoch(memoryKv, pkg);
  return account;
}

/**
 * Disconnects a device's account: the account and its credential go, the
 * epoch moves on; the device's records and tasks stay.
 *
 * @param kv The installation's KV.
 * @param memoryKv The project's memory KV, where the account epoch is.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @returns Whether an account was connected.
 */
export async function disconnectAccount(
  kv: Deno.Kv,
  memoryKv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<boolean> {
  const key = accountKey(project, pkg);
  let had = false;
  while (true) {
    const before = await kv.get(key);
    had = before.value !== null;
    const committed = await kv.atomic().check(before).delete(key)
      .delete(accountCredentialKey(project, pkg)).commit();
    if (committed.ok) break;
  }
  await bumpAccountEpoch(memoryKv, pkg);
  return had;
}

/**
 * The account connected to a device, without its credential; null when none is.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export async function readAccount(
  kv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<Account | null> {
  return (await kv.get<Account>(accountKey(project, pkg))).value;
}

/**
 * The account connected to a device; refused when none is.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @throws {NotFoundError} when no account is connected.
 */
export async function connectedAccount(
  kv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<Account> {
  const account = await readAccount(kv, project, pkg);
  if (!account) {
    throw new NotFoundError(
      `${pkg} has no account connected in ${project}; connect one first`,
    );
  }
  return account;
}

async function accountFolder(what: string, folder: unknown): Promise<string> {
  if (typeof folder !== "string" || folder === "") {
    throw new InvalidInputError(`${what}: "folder" must be a folder's absolute path`);
  }
  if (folder.length > APPLET_LIMITS.maxAccountChars) {
    throw new InvalidInputError(
      `${what}: the folder's path is longer than ${APPLET_LIMITS.maxAccountChars} characters`,
    );
  }
  if (!isAbsolute(folder)) {
    throw new InvalidInputError(`${what}: ${folder} is not an absolute path; give the whole path`);
  }
  let real: string;
  try {
    real = await Deno.realPath(folder);
  } catch {
    throw new InvalidInputError(`${what}: ${folder} does not exist; pick a folder that does`);
  }
  let isDirectory = false;
  try {
    isDirectory = (await Deno.stat(real)).isDirectory;
  } catch { /* said below */ }
  if (!isDirectory) {
    throw new InvalidInputError(`${what}: ${folder} is not a folder; pick a folder`);
  }
  return real;
}

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

function accountOrigin(what: string, origin: unknown): string {
  if (typeof origin !== "string" || origin === "") {
    throw new InvalidInputError(`${what}: "origin" must be an origin such as https://mail.example`);
  }
  if (origin.length > APPLET_LIMITS.maxAccountChars) {
    throw new InvalidInputError(
      `${what}: the origin is longer than ${APPLET_LIMITS.maxAccountChars} characters`,
    );
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new InvalidInputError(
      `${what}: ${JSON.stringify(origin)} is not an origin; give one such as https://mail.example`,
    );
  }
  const bare = url.pathname === "/" && url.search === "" && url.hash === "" &&
    url.username === "" && url.password === "";
  if (!bare) {
    throw new InvalidInputError(
      `${what}: ${JSON.stringify(origin)} has more than scheme, host and port; give ${url.origin}`,
    );
  }
  if (url.protocol === "https:") return url.origin;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return url.origin;
  throw new InvalidInputError(
    `${what}: ${url.origin} is not https; only https reaches a host, and http only this machine (127.0.0.1)`,
  );
}

function accountCredential(what: string, credential: unknown): string {
  if (typeof credential !== "string" || credential === "") {
    throw new InvalidInputError(`${what}: a remote account needs its credential; give it`);
  }
  if (credential.length > APPLET_LIMITS.maxCredentialChars) {
    throw new InvalidInputError(
      `${what}: the credential is longer than ${APPLET_LIMITS.maxCredentialChars} characters`,
    );
  }
  return credential;
}
