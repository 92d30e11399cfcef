/**
 * The installation's token: the secret every request to `sync serve` carries
 * (the person's browser, and the CLI when it sends a command to the serve
 * that owns the installation). It lives in `<home>/token`, readable by this
 * user only; a token others can read is refused rather than used, because
 * anyone who reads it may do whatever the person may.
 *
 * @module
 */
import { join } from "../internal/posix_path.ts";
import { NotFoundError, UnsafeFileError } from "../errors.ts";
import { storageFailure } from "../storage_failure.ts";
import { assertThisUsers } from "./this_user.ts";

/** Where the token lives. */
function tokenPath(home: string): string {
  return join(home, "token");
}

/**
 * The installation's token, made on first use.
 *
 * @param home The installation folder.
 * @throws {UnsafeFileError} when the token file may be read or changed by other users.
 */
export async function installationToken(home: string): Promise<string> {
  try {
    return await readInstallationToken(home);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  // Written whole under another name and renamed, so no reader sees half a token;
  // created private, so there is no moment at which others may read it.
  const file = tokenPath(home);
  const temp = `${file}.${crypto.randomUUID()}`;
  try {
    await Deno.writeTextFile(temp, token + "\n", { mode: 0o600, createNew: true });
    await Deno.chmod(temp, 0o600);
    await Deno.rename(temp, file);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw storageFailure(error, file) ?? error;
  }
  return token;
}

/**
 * Reads the installation's token, which `sync serve` made.
 *
 * @param home The installation folder.
 * @throws {NotFoundError} when there is none yet (or it is not a token).
 * @throws {UnsafeFileError} when the token file belongs to another user, or may be read or changed
 *   by other users.
 */
export async function readInstallationToken(home: string): Promise<string> {
  const file = tokenPath(home);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new NotFoundError(`The installation has no token yet (${file})`);
    }
    throw error;
  }
  // Another user's token is theirs to hand out: sent anywhere, it says nothing of this installation.
  await assertThisUsers(
    file,
    info,
    "it is not used: remove it, and the next sync serve makes a new token",
  );
  assertPrivate(file, info);
  const token = (await Deno.readTextFile(file)).trim();
  if (!/^[0-9a-f]{32,}$/.test(token)) {
    throw new NotFoundError(`${file} does not hold a token; remove it and Sync makes a new one`);
  }
  return token;
}

/**
 * Refuses a token file whose mode lets the group or others in. (Where the
 * system has no modes, there is nothing to check.)
 */
function assertPrivate(file: string, info: Deno.FileInfo): void {
  if (info.mode === null) return;
  const open = info.mode & 0o077;
  if (open === 0) return;
  const mode = (info.mode & 0o777).toString(8);
  const how = open & 0o044 ? "read" : "changed";
  throw new UnsafeFileError(
    `The installation's token can be ${how} by other users (mode ${mode}): ${file}. ` +
      `Whoever reads it may do what you may in Sync, so it is not used: run chmod 600 ${file} ` +
      `(or remove the file, and the next sync serve makes a new token)`,
  );
}
