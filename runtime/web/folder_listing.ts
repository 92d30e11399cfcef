/**
 * The folder browser's reads: a folder's subfolders, only inside the roots
 * the page may browse (the person's home and the bundled examples). Every
 * path is resolved first — `..`, links and all — and refused unless the
 * resolved folder is a root or inside one, so neither a `..` nor a link
 * pointing out shows anything outside.
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { InvalidInputError, NotFoundError, PermissionDeniedError } from "../errors.ts";
import type { BrowseRoot, FolderEntry, FolderListing } from "./api/types.ts";

/** The most subfolders one listing holds, the first by name; a folder with more says it holds more. */
export const FOLDERS_LISTED = 1000;

/** The longest name a folder can have on the filesystems Sync runs on, in bytes of UTF-8. */
const NAME_MAX_BYTES = 255;

/** Options for {@linkcode listFolder}. */
export interface ListFolderOptions {
  /** Lists folders whose name starts with a dot too. */
  hidden?: boolean;
}

/**
 * Resolves the roots, dropping those that are not folders, and a root that is
 * the filesystem's root `/` (a HOME of `/`, or a link to it): browsing it
 * would show the whole disk.
 *
 * @param roots The places the browser may show, with their paths as given.
 * @returns Each root that is a folder, with its resolved path; and why each
 *   root given was not offered, in words.
 */
export async function resolveRoots(
  roots: readonly BrowseRoot[],
): Promise<{ roots: BrowseRoot[]; leftOut: string[] }> {
  const resolved: BrowseRoot[] = [];
  const leftOut: string[] = [];
  for (const root of roots) {
    // A relative root (an odd HOME) would be read from wherever serve started.
    if (!isAbsolute(root.path)) continue;
    try {
      const path = await Deno.realPath(root.path);
      if (path === "/") {
        leftOut.push(
          `${root.label} (${root.path}) is not offered: it is the filesystem's root, and ` +
            `browsing it would show the whole disk. Type the folder's path instead.`,
        );
        continue;
      }
      if ((await Deno.stat(path)).isDirectory) resolved.push({ label: root.label, path });
    } catch {
      // A root that is not there is not offered.
    }
  }
  return { roots: resolved, leftOut };
}

/**
 * Lists one folder's subfolders, when the folder is inside a root.
 *
 * @param path The folder, absolute; the first root when undefined.
 * @param roots The resolved roots ({@linkcode resolveRoots}).
 * @returns The folder, resolved, its parent inside the root, and its subfolders by name.
 * @throws {InvalidInputError} when the path is relative or not a folder.
 * @throws {NotFoundError} when nothing is at the path, or no root is there to browse.
 * @throws {PermissionDeniedError} when the resolved folder is outside every root.
 */
export async function listFolder(
  path: string | undefined,
  roots: readonly BrowseRoot[],
  options: ListFolderOptions = {},
): Promise<FolderListing> {
  if (roots.length === 0) {
    throw new NotFoundError(
      "There is no folder to browse: neither a home folder (HOME) nor the bundled examples " +
        "are there. Type the folder's path instead.",
    );
  }
  const given = path ?? roots[0].path;
  if (given.includes("\0")) {
    throw new InvalidInputError(
      "The path contains a NUL character, which no folder's path holds. Choose a folder from the list.",
    );
  }
  if (!isAbsolute(given)) {
    throw new InvalidInputError(
      `${
        JSON.stringify(given)
      } is not an absolute path: give a folder's full path, starting with /.`,
    );
  }
  const encoder = new TextEncoder();
  for (const name of given.split("/")) {
    const bytes = encoder.encode(name).length;
    if (bytes > NAME_MAX_BYTES) {
      throw new InvalidInputError(
        `The name ${JSON.stringify(`${name.slice(0, 40)}…`)} in the path is too long: ` +
          `${bytes} bytes, and a folder's name is at most ${NAME_MAX_BYTES}. Choose a folder from the list.`,
      );
    }
  }
  let real: string;
  try {
    real = await Deno.realPath(given);
  } catch (error) {
    const missing = error instanceof Deno.errors.NotFound ||
      error instanceof Deno.errors.NotADirectory;
    if (!missing) throw outside(given, roots);
    // Whether something is there is told only inside the roots: the deepest
    // folder of the path that is there, resolved, decides, so a link out of
    // home answers the same whether what follows it exists or not.
    const there = await deepestThere(resolve(given));
    if (there !== null && rootOf(there, roots)) {
      throw new NotFoundError(`There is no folder at ${given}. Choose one from the list.`);
    }
    throw outside(given, roots);
  }
  const root = rootOf(real, roots);
  if (!root) throw outside(given, roots);
  if (!(await Deno.stat(real)).isDirectory) {
    throw new InvalidInputError(`${given} is a file, not a folder. Choose a folder.`);
  }
  // The first FOLDERS_LISTED by name, whatever order the disk answers in:
  // at most twice that many are held while the folder is read.
  const byName = (a: FolderEntry, b: FolderEntry) => a.name.localeCompare(b.name);
  let folders: FolderEntry[] = [];
  let found = 0;
  for await (const entry of readFolder(real)) {
    if (!options.hidden && entry.name.startsWith(".")) continue;
    const child = join(real, entry.name);
    if (!entry.isDirectory && !(entry.isSymlink && await linksToFolderInside(child, roots))) {
      continue;
    }
    found++;
    folders.push({ name: entry.name, path: child });
    if (folders.length === 2 * FOLDERS_LISTED) {
      folders = folders.sort(byName).slice(0, FOLDERS_LISTED);
    }
  }
  folders = folders.sort(byName).slice(0, FOLDERS_LISTED);
  const truncated = found > FOLDERS_LISTED;
  return {
    path: real,
    parent: real === root.path ? null : dirname(real),
    root,
    roots: [...roots],
    folders,
    truncated,
  };
}

/** The entries of a folder this user may not read are refused in words. */
async function* readFolder(path: string): AsyncIterable<Deno.DirEntry> {
  try {
    yield* Deno.readDir(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.PermissionDenied)) throw error;
    throw new PermissionDeniedError(
      `Sync cannot read ${path}: this user may not list it. Choose another folder.`,
    );
  }
}

/** The deepest folder of `path` that is there, resolved; null when none is. */
async function deepestThere(path: string): Promise<string | null> {
  for (let at = dirname(path);; at = dirname(at)) {
    try {
      return await Deno.realPath(at);
    } catch {
      if (at === "/") return null;
    }
  }
}

/** The root `real` is, or is inside; undefined when it is outside all. */
function rootOf(real: string, roots: readonly BrowseRoot[]): BrowseRoot | undefined {
  return roots.find((root) =>
    real === root.path || real.startsWith(root.path === "/" ? "/" : `${root.path}/`)
  );
}

/** Whether the link at `path` ends at a folder inside a root. */
async function linksToFolderInside(path: string, roots: readonly BrowseRoot[]): Promise<boolean> {
  try {
    const real = await Deno.realPath(path);
    return rootOf(real, roots) !== undefined && (await Deno.stat(real)).isDirectory;
  } catch {
    return false;
  }
}

/** The refusal of a path outside every root, naming the roots. */
function outside(given: string, roots: readonly BrowseRoot[]): PermissionDeniedError {
  const places = roots.map((root) => `${root.label.toLowerCase()} (${root.path})`).join(" and ");
  return new PermissionDeniedError(
    `${basename(given) || given} is outside the folders Sync shows: ${places}. ` +
      `Choose a folder inside one of them, or type its path.`,
  );
}
