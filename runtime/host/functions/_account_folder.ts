/**
 * A device's account folder, read-only, for the `account.*` host functions:
 * paths relative to the folder, `/`-separated and bounded; every path
 * followed through its links and checked to stay inside; listings a page at
 * a time, in path order; files read within a size and a time.
 *
 * @module
 */
import {
  AccountAccessError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  TransientError,
} from "../../errors.ts";
import { ACCOUNT_LIMITS } from "../../limits.ts";
import { fileKind, pathInside } from "../../internal/path_inside.ts";
import { openWhereFound } from "../../internal/open_where_found.ts";

/**
 * The segments of a path an `account.*` function was handed, checked:
 * relative, `/`-separated, no empty segment, no NUL, within its length;
 * `.` segments left out. `""` (or `.`) is the folder itself.
 *
 * @param fn The function, as refusals name it.
 * @param path What the handler passed.
 * @throws {InvalidInputError} for what is no such path.
 * @throws {AccountAccessError} for a `..` segment: it would lead outside the folder.
 */
export function accountPath(fn: string, path: unknown): string[] {
  if (typeof path !== "string") {
    throw new InvalidInputError(`${fn}() takes a path relative to the account folder, as a string`);
  }
  if (path.length > ACCOUNT_LIMITS.maxPathChars) {
    throw new InvalidInputError(
      `${fn}(): the path is ${path.length} characters; the limit is ${ACCOUNT_LIMITS.maxPathChars}`,
    );
  }
  if (path.startsWith("/")) {
    throw new InvalidInputError(
      `${fn}(): "${path}" is absolute; give it relative to the account folder, such as "cur/…"`,
    );
  }
  if (path.includes("\0")) throw new InvalidInputError(`${fn}(): the path holds a NUL character`);
  const segments = path === "" ? [] : path.split("/");
  if (segments.includes("..")) {
    throw new AccountAccessError(
      `${fn}() cannot reach "${path}": it leads outside the account folder; ` +
        `paths are relative to the folder and stay in it`,
    );
  }
  if (segments.slice(0, -1).includes("")) {
    throw new InvalidInputError(`${fn}(): "${path}" has an empty segment (a doubled /)`);
  }
  return segments.filter((segment) => segment !== "." && segment !== "");
}

/** A path inside the folder once followed: its real path and what it is. */
export interface Found {
  /** Its real path, links followed. */
  real: string;
  /** What it is (`stat` of the real path). */
  info: Deno.FileInfo;
}

/**
 * Checks the account folder is there and is a folder.
 *
 * @throws {AccountAccessError} when it is gone, unreadable or no folder.
 */
export async function checkAccountFolder(fn: string, folder: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(folder);
  } catch (error) {
    throw folderUnreachable(fn, folder, error);
  }
  if (!info.isDirectory) {
    throw new AccountAccessError(
      `${fn}() cannot read the account folder ${folder}: it is ${fileKind(info)} now, not a ` +
        `folder; connect the folder again`,
    );
  }
}

/** Why the account folder cannot be read, as the refusal a handler gets. */
export function folderUnreachable(fn: string, folder: string, error: unknown): Error {
  if (error instanceof Deno.errors.NotFound) {
    return new AccountAccessError(
      `${fn}() cannot read the account folder ${folder}: it is gone; ` +
        `connect the folder again, or bring it back`,
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new AccountAccessError(
      `${fn}() cannot read the account folder ${folder}: Sync may not read it; ` +
        `allow access to it again`,
    );
  }
  return transientOr(fn, folder, error);
}

/** A busy, locked or slow file system as a `TransientError`; anything else as it is. */
function transientOr(fn: string, what: string, error: unknown): Error {
  if (
    error instanceof Deno.errors.Busy || error instanceof Deno.errors.WouldBlock ||
    error instanceof Deno.errors.TimedOut || error instanceof Deno.errors.Interrupted
  ) {
    return new TransientError(
      `${fn}() could not read ${what} now: ${(error as Error).message}; it is tried again later`,
    );
  }
  return error as Error;
}

/**
 * Follows a checked path in the folder.
 *
 * @throws {AccountAccessError} when it leads outside the folder or may not be read.
 * @throws {Deno.errors.NotFound} when it is not there.
 */
export async function follow(fn: string, folder: string, segments: string[]): Promise<Found> {
  const path = segments.join("/");
  try {
    const found = await pathInside(folder, path === "" ? "." : path);
    if (found.inside === null) {
      // Where it leads is not said: the handler learns nothing of what lies outside.
      throw new AccountAccessError(
        `${fn}() cannot reach "${path}": a link leads outside the account folder; ` +
          `only what is inside the folder is read`,
      );
    }
    return { real: found.real, info: await Deno.stat(found.real) };
  } catch (error) {
    if (error instanceof AccountAccessError || error instanceof Deno.errors.NotFound) throw error;
    // `cur/file/x`: a file where a folder would be is no such path either.
    if (error instanceof Deno.errors.NotADirectory) throw new Deno.errors.NotFound(path);
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new AccountAccessError(
        `${fn}() cannot read "${path}" of the account folder: Sync may not read it; ` +
          `allow access to it again`,
      );
    }
    throw transientOr(fn, `"${path}"`, error);
  }
}

/**
 * Reads a file's bytes within `maxBytes` and the read time limit; null when
 * larger. The file read is the one found: see {@linkcode openWhereFound}.
 */
async function readBounded(
  fn: string,
  segments: string[],
  real: string,
  maxBytes: number,
): Promise<Uint8Array | null> {
  const path = segments.join("/");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new TransientError(
            `${fn}() could not read "${path}" within ${ACCOUNT_LIMITS.readTimeoutMs} ms; ` +
              `it is tried again later`,
          ),
        ),
      ACCOUNT_LIMITS.readTimeoutMs,
    );
  });
  const read = async () => {
    let opened: ReturnType<typeof openWhereFound>;
    try {
      opened = openWhereFound(real);
    } catch (error) {
      throw asDenoError(error);
    }
    if (typeof opened === "string") {
      throw new TransientError(
        `${fn}() could not read "${path}": it changed while it was opened; it is tried again later`,
      );
    }
    try {
      return await opened.readAtMost(maxBytes);
    } finally {
      opened.close();
    }
  };
  try {
    return await Promise.race([read(), late]);
  } catch (error) {
    if (
      error instanceof TransientError || error instanceof AccountAccessError ||
      error instanceof Deno.errors.NotFound
    ) {
      throw error;
    }
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new AccountAccessError(
        `${fn}() cannot read "${path}" of the account folder: Sync may not read it; ` +
          `allow access to it again`,
      );
    }
    throw transientOr(fn, `"${path}"`, asDenoError(error));
  } finally {
    clearTimeout(timer);
  }
}

/** A Node file system error (it has a `code`) as Deno's, so one mapping serves both. */
function asDenoError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as Error)?.message ?? String(error);
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return new Deno.errors.NotFound(message);
    case "EACCES":
    case "EPERM":
      return new Deno.errors.PermissionDenied(message);
    case "EBUSY":
      return new Deno.errors.Busy(message);
    case "EAGAIN":
      return new Deno.errors.WouldBlock(message);
    case "EINTR":
      return new Deno.errors.Interrupted(message);
    case "ETIMEDOUT":
      return new Deno.errors.TimedOut(message);
    default:
      return error;
  }
}

/**
 * `account.read`: a regular file of the folder as UTF-8 text.
 *
 * @throws {NotFoundError} when there is no such file.
 * @throws {AccountAccessError} when it leads outside, is no regular file, or may not be read.
 * @throws {PayloadTooLargeError} past `maxReadBytes`.
 * @throws {TransientError} when the file is busy or slow.
 */
export async function readAccountText(folder: string, path: unknown): Promise<string> {
  const fn = "account.read";
  const segments = accountPath(fn, path);
  await checkAccountFolder(fn, folder);
  const name = segments.join("/");
  try {
    const { real, info } = await follow(fn, folder, segments);
    if (!info.isFile) {
      throw new AccountAccessError(
        `${fn}() cannot read "${name}": it is ${fileKind(info)}, not a regular file`,
      );
    }
    const max = ACCOUNT_LIMITS.maxReadBytes;
    if (info.size > max) throw readTooLarge(name, info.size, max);
    const bytes = await readBounded(fn, segments, real, max);
    if (bytes === null) throw readTooLarge(name, max + 1, max);
    return new TextDecoder().decode(bytes);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new NotFoundError(`${fn}(): there is no file "${name}" in the account folder`);
    }
    throw error;
  }
}

function readTooLarge(path: string, size: number, max: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `account.read() cannot answer "${path}": it is ${size} bytes or more; the limit is ${max}`,
  );
}

/** One file read for a parser: its bytes, or why not (the file vanished, is too large, …). */
export type FileForParse =
  & { path: string; size: number; mtime: number | null }
  & ({ bytes: Uint8Array } | { reason: string });

/**
 * The paths of a parse call, checked before anything is read: an array of
 * at most `maxParsePaths`, each a path {@linkcode accountPath} takes.
 *
 * @throws {InvalidInputError} for what is no such list.
 * @throws {AccountAccessError} for a path with a `..` segment.
 */
export function parsePaths(fn: string, paths: unknown): string[][] {
  if (!Array.isArray(paths)) throw new InvalidInputError(`${fn}() takes an array of paths`);
  if (paths.length > ACCOUNT_LIMITS.maxParsePaths) {
    throw new InvalidInputError(
      `${fn}() takes at most ${ACCOUNT_LIMITS.maxParsePaths} paths a call, not ${paths.length}; ` +
        `call it again for the rest`,
    );
  }
  return paths.map((path) => accountPath(fn, path));
}

/**
 * Reads one file of the folder for a parse: a file that vanished, is no
 * regular file or is larger than `maxBytes` is answered with its reason
 * rather than thrown; one that leads outside the folder fails the call.
 *
 * @param fn The function, as refusals name it.
 * @param folder The account folder.
 * @param segments The path, checked by {@linkcode parsePaths}.
 * @param maxBytes The most the file may hold.
 * @throws {AccountAccessError} when the path leads outside, or may not be read.
 * @throws {TransientError} when the file is busy or slow.
 */
export async function readForParse(
  fn: string,
  folder: string,
  segments: string[],
  maxBytes: number,
): Promise<FileForParse> {
  const path = segments.join("/");
  try {
    const { real, info } = await follow(fn, folder, segments);
    const base = { path, size: info.size, mtime: info.mtime?.getTime() ?? null };
    if (!info.isFile) return { ...base, reason: `it is ${fileKind(info)}, not a regular file` };
    if (info.size > maxBytes) {
      return {
        ...base,
        reason: `it is ${info.size.toLocaleString("en-US")} bytes; the most parsed is ` +
          `${maxBytes.toLocaleString("en-US")}`,
      };
    }
    const bytes = await readBounded(fn, segments, real, maxBytes);
    if (bytes === null) {
      return { ...base, reason: `it grew past ${maxBytes} bytes while it was read` };
    }
    return { ...base, size: bytes.byteLength, bytes };
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    // Mail moves (new/ to cur/, flags in the name): a file gone since it was listed is no failure of the call.
    return { path, size: 0, mtime: null, reason: "it is gone: there is no such file now" };
  }
}
