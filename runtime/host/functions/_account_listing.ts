/**
 * `account.list`: a device's account folder listed a page at a time, in path
 * order, links followed where they stay inside.
 *
 * @module
 */
import { InvalidInputError, NotFoundError } from "../../errors.ts";
import type { AccountEntry, AccountListing } from "../../extension_api/service.ts";
import { ACCOUNT_LIMITS } from "../../limits.ts";
import { fileKind, pathInside } from "../../internal/path_inside.ts";
import {
  accountPath,
  checkAccountFolder,
  folderUnreachable,
  follow,
  type Found,
} from "./_account_folder.ts";
import { sortedFolderNames } from "./_folder_names.ts";

/** Options of `account.list`. */
export interface ListOptions {
  /** A folder to list, relative to the account folder. */
  under?: string;
  /** The cursor of the page before. */
  cursor?: string;
  /** Walk subfolders too. */
  recursive?: boolean;
}

/** How {@linkcode listAccount} lists, besides what it lists. */
export interface ListAccountOptions {
  /**
   * What the walk waits for whenever it lets the thread serve others: the
   * host's gate for a person's requests, as a task step's listing is
   * background work. It does not wait when absent.
   */
  yieldTo?: { wait(): Promise<void> | null };
}

/**
 * `account.list`: a page of the folder's entries in path order (segment by
 * segment), links followed where they stay inside; other kinds (FIFOs,
 * sockets, devices), links leading out and paths longer than `maxPathChars`
 * are passed over.
 *
 * @throws {AccountAccessError} when the folder is gone, or `under` leads outside it.
 * @throws {NotFoundError} when `under` is not there.
 * @throws {InvalidInputError} for a malformed option.
 */
export async function listAccount(
  folder: string,
  options: ListOptions,
  how: ListAccountOptions = {},
): Promise<AccountListing> {
  const fn = "account.list";
  const under = accountPath(fn, options.under ?? "");
  const cursor = options.cursor === undefined ? null : accountPath(fn, options.cursor);
  if (cursor !== null && cursor.length === 0) {
    throw new InvalidInputError(`${fn}(): the cursor is not one this function answered`);
  }
  await checkAccountFolder(fn, folder);
  let start: Found;
  try {
    start = await follow(fn, folder, under);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new NotFoundError(`${fn}(): there is no folder "${under.join("/")}" in the account`);
    }
    throw error;
  }
  if (!start.info.isDirectory) {
    throw new InvalidInputError(
      `${fn}(): "${under.join("/")}" is ${fileKind(start.info)}, not a folder`,
    );
  }
  const root = await Deno.realPath(folder).catch((error) => {
    throw folderUnreachable(fn, folder, error);
  });
  const limit = ACCOUNT_LIMITS.maxListEntries;
  const entries: AccountEntry[] = [];
  const walk = new Walk(fn, root, cursor, limit + 1, options.recursive === true, how.yieldTo);
  await walk.folder(start.real, under, 0, new Set([start.real]), entries);
  const more = entries.length > limit;
  const page = entries.slice(0, limit);
  return { entries: page, cursor: more ? page[page.length - 1].path : null };
}

/** One walk of a listing: where it resumes, how many it takes, whether it goes down. */
class Walk {
  #fn: string;
  #root: string;
  #cursor: string[] | null;
  #take: number;
  /** When the walk last let the thread serve others (or began), in ms of `performance.now()`. */
  #since = performance.now();
  #recursive: boolean;
  #yieldTo: ListAccountOptions["yieldTo"];

  constructor(
    fn: string,
    root: string,
    cursor: string[] | null,
    take: number,
    recursive: boolean,
    yieldTo: ListAccountOptions["yieldTo"],
  ) {
    this.#yieldTo = yieldTo;
    this.#fn = fn;
    this.#root = root;
    this.#cursor = cursor;
    this.#take = take;
    this.#recursive = recursive;
  }

  /** Lists `real` (the folder at `segments`), and below it when recursive, into `out`. */
  async folder(
    real: string,
    segments: string[],
    depth: number,
    seen: Set<string>,
    out: AccountEntry[],
  ): Promise<void> {
    let names: readonly string[];
    try {
      names = await sortedFolderNames(real);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return; // gone since: nothing to list
      if (error instanceof Deno.errors.PermissionDenied && depth > 0) return;
      throw folderUnreachable(this.#fn, real, error);
    }
    for (const name of names) {
      if (out.length >= this.#take) return;
      const path = [...segments, name];
      const order = this.#cursor ? compareSegments(path, this.#cursor) : 1;
      const holdsCursor = order < 0 && isPrefix(path, this.#cursor!);
      // Before the cursor and not on the way to it: listed on an earlier page, with all below it.
      if (order < 0 && !holdsCursor) continue;
      // A path no account function takes could be neither read nor listed on from.
      if (path.join("/").length > ACCOUNT_LIMITS.maxPathChars) continue;
      // A look is a few microseconds done at once, where an asynchronous one waits its turn on
      // the I/O threads (~20× longer). Every BUSY_MS one look is asynchronous all the same:
      // while it waits, the thread serves what came meanwhile (a person's request), and unlike
      // a timer it idles no longer than the look takes.
      const patient = performance.now() - this.#since > BUSY_MS;
      if (patient) {
        // A person's request goes first.
        const held = this.#yieldTo?.wait();
        if (held) await held;
      }
      const entry = await this.#entry(real, name, path, patient);
      if (patient) this.#since = performance.now();
      if (entry === null) continue;
      if (order > 0) out.push(entry.listed);
      if (
        entry.listed.kind === "folder" && this.#recursive &&
        depth < ACCOUNT_LIMITS.maxListDepth && !seen.has(entry.real)
      ) {
        // A link back up would walk in circles: each real folder is walked once.
        await this.folder(entry.real, path, depth + 1, new Set([...seen, entry.real]), out);
      }
    }
  }

  /**
   * The entry `name` in `parent`, links followed; null when it is passed
   * over. Looked at asynchronously when `patient`.
   */
  async #entry(
    parent: string,
    name: string,
    path: string[],
    patient: boolean,
  ): Promise<{ listed: AccountEntry; real: string } | null> {
    let real = `${parent}/${name}`;
    let info: Deno.FileInfo;
    try {
      info = patient ? await Deno.lstat(real) : Deno.lstatSync(real);
      if (info.isSymlink) {
        const found = await pathInside(this.#root, path.join("/"));
        if (found.inside === null) return null;
        real = found.real;
        info = await Deno.stat(real);
      }
    } catch {
      return null; // gone since it was listed, a broken link, or unreadable
    }
    if (!info.isFile && !info.isDirectory) return null;
    return {
      real,
      listed: {
        path: path.join("/"),
        kind: info.isFile ? "file" : "folder",
        size: info.isFile ? info.size : 0,
        mtime: info.mtime?.getTime() ?? null,
      },
    };
  }
}

/** How long a walk looks at entries at once before it lets the thread serve others, in ms. */
const BUSY_MS = 1;

/** Path order, segment by segment: the order a walk with sorted names meets them. */
function compareSegments(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

function isPrefix(prefix: string[], path: string[]): boolean {
  return prefix.length < path.length && prefix.every((segment, i) => path[i] === segment);
}
