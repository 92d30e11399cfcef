/**
 * Where a program named without a path is looked for: the absolute folders
 * of Sync's own `PATH`, in order, then the folders in the person's home
 * where per-user installers put programs (`~/.local/bin`: Claude Code's
 * native installer, pipx, `pip install --user`), which the `PATH` of a
 * session started from a desktop often lacks.
 *
 * @module
 */
import { delimiter, isAbsolute, join } from "node:path";

/** Folders under the home, looked in after `PATH`. */
const HOME_FOLDERS: readonly string[] = [".local/bin"];

/** The folders a program's name is looked for in. */
export interface SearchPath {
  /** Every folder looked in, in order: `PATH`'s absolute ones, then the home's. */
  folders: string[];
  /** The home's folders added after `PATH` (those not on it already). */
  added: string[];
  /** True when `PATH` has relative folders, which are not looked in. */
  relativeLeftOut: boolean;
}

/**
 * The folders a program's name is looked for in.
 *
 * @param path Sync's own `PATH`.
 * @param home Sync's own `HOME`; its folders are added only when it is absolute.
 */
export function searchPath(path: string | undefined, home: string | undefined): SearchPath {
  const entries = (path ?? "").split(delimiter).filter((folder) => folder.length > 0);
  const folders = entries.filter((folder) => isAbsolute(folder));
  const added: string[] = [];
  if (home !== undefined && isAbsolute(home)) {
    for (const folder of HOME_FOLDERS.map((name) => join(home, name))) {
      if (!folders.includes(folder) && !added.includes(folder)) added.push(folder);
    }
  }
  return {
    folders: [...folders, ...added],
    added,
    relativeLeftOut: folders.length < entries.length,
  };
}

/**
 * The `PATH` a program is started with: Sync's own, with the home's folders
 * added at its end, so that a program found there finds its siblings too.
 *
 * @param path Sync's own `PATH`.
 * @param home Sync's own `HOME`.
 */
export function childPath(path: string | undefined, home: string | undefined): string | undefined {
  const { added } = searchPath(path, home);
  if (added.length === 0) return path;
  return [...(path ? [path] : []), ...added].join(delimiter);
}
