/**
 * Watching linked folders: while a window watches a project
 * (`GET /api/events?project=…`), the folders of the packages installed
 * there from a folder — "linked", read again as they change — are watched
 * with `Deno.watchFs`, and a change to one is told on the bus as a
 * `package-changed` fact for each project that watches it, so the lamp and
 * the extension's page are read again within a moment instead of at the
 * next reload.
 *
 * - What is watched: each linked package's folder and the folders of the
 *   files its manifest names (service module, screen, types, prompt), not
 *   recursively, so a package's `node_modules` or `src/` cost nothing. A
 *   folder that is gone is watched for through its parent, so it is seen
 *   when it comes back. At most `LINKED_FOLDER_LIMITS.maxWatchedFolders` in
 *   all; the rest show their changes at the next reload.
 * - When: the set is worked out again when the first window of a project
 *   opens or the last one closes, when a package is installed into or
 *   removed from a watched project, and after each change told. With no
 *   window open nothing is watched and no watcher is on the bus.
 * - A burst of changes (an editor's save, a build writing several files) is
 *   gathered for `LINKED_FOLDER_LIMITS.settleMs` and told once per package.
 *
 * Nothing here is on a handler call's way: a call reads its files as before
 * (kept while they stay the same, `runtime/internal/file_memo.ts`).
 *
 * @module
 */
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { EventBus, EventSubscription } from "../event_bus.ts";
import { isFolder } from "../internal/is_folder.ts";
import { LINKED_FOLDER_LIMITS } from "../limits.ts";
import { readApproval, readManifestAt, readPackageRef } from "../packages/mod.ts";
import { readDeclaredIds } from "../projects/mod.ts";

/** Options for {@linkcode LinkedFolders}. */
export interface LinkedFoldersOptions {
  /** The most folders watched at once; `LINKED_FOLDER_LIMITS.maxWatchedFolders` when absent. */
  maxWatchedFolders?: number;
  /** How long a burst of changes is gathered, in ms; `LINKED_FOLDER_LIMITS.settleMs` when absent. */
  settleMs?: number;
  /** Where notices go (a folder that could not be watched, the bound reached). */
  log?: (line: string) => void;
}

/** A linked package in a watched project. */
interface Linked {
  /** The project's resolved folder. */
  project: string;
  /** The package id. */
  id: string;
}

/** The bus's facts after which the set of folders is worked out again. */
const INSTALL_FACTS = new Set(["installed", "removed"] as const);

/** The linked folders of the packages installed in the projects windows watch. */
export class LinkedFolders {
  #kv: Deno.Kv;
  #bus: EventBus;
  #maxFolders: number;
  #settleMs: number;
  #log: (line: string) => void;
  /** Per watched project, how many windows watch it. */
  #projects = new Map<string, number>();
  /** Per linked package folder, the packages read from it. */
  #roots = new Map<string, Linked[]>();
  /** The folders handed to the watcher now, sorted. */
  #paths: string[] = [];
  #watcher: Deno.FsWatcher | null = null;
  #installs: EventSubscription | null = null;
  /** Package folders changed since the first change of a burst. */
  #changed = new Set<string>();
  #settle: ReturnType<typeof setTimeout> | undefined;
  #refreshing: Promise<void> | null = null;
  #again = false;
  #boundTold = false;
  #closed = false;

  /**
   * Watches nothing until a project is watched.
   *
   * @param kv The installation's KV: which artefact serves each id.
   * @param bus Where `package-changed` is told, and installs and removals are heard.
   * @param options The bound, the settling time, and where notices go.
   */
  constructor(kv: Deno.Kv, bus: EventBus, options: LinkedFoldersOptions = {}) {
    this.#kv = kv;
    this.#bus = bus;
    this.#maxFolders = options.maxWatchedFolders ?? LINKED_FOLDER_LIMITS.maxWatchedFolders;
    this.#settleMs = options.settleMs ?? LINKED_FOLDER_LIMITS.settleMs;
    this.#log = options.log ?? (() => {});
  }

  /**
   * Watches a project's linked folders for one window, until the returned
   * function is called.
   *
   * @param project The project's resolved folder.
   * @returns Stops watching for that window; the folders stay watched while another window watches.
   */
  watchProject(project: string): () => void {
    if (this.#closed) return () => {};
    const before = this.#projects.get(project) ?? 0;
    this.#projects.set(project, before + 1);
    if (before === 0) {
      this.#hearInstalls();
      this.#refresh();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#projects.get(project) ?? 1) - 1;
      if (left > 0) {
        this.#projects.set(project, left);
        return;
      }
      this.#projects.delete(project);
      if (this.#projects.size === 0) this.#stop();
      else this.#refresh();
    };
  }

  /** The folders watched now, sorted (for tests and notices). */
  get folders(): readonly string[] {
    return this.#paths;
  }

  /** Resolves once the set of folders has been worked out for what is watched now. */
  async settled(): Promise<void> {
    while (this.#refreshing) await this.#refreshing;
  }

  /** Stops watching everything, for good (serve stopping). */
  close(): void {
    this.#closed = true;
    this.#projects.clear();
    this.#stop();
  }

  /** Stops the watcher, the bus subscription and a pending burst. */
  #stop(): void {
    this.#installs?.close();
    this.#installs = null;
    this.#watcher?.close();
    this.#watcher = null;
    this.#paths = [];
    this.#roots = new Map();
    clearTimeout(this.#settle);
    this.#settle = undefined;
    this.#changed.clear();
  }

  /** Hears installs and removals in watched projects, while any is watched. */
  #hearInstalls(): void {
    if (this.#installs) return;
    const subscription = this.#bus.subscribe({ types: INSTALL_FACTS });
    this.#installs = subscription;
    (async () => {
      while (!subscription.closed) {
        const event = await subscription.next(60_000);
        if (event === null) continue;
        if (event.type === "resync" || this.#projects.has(event.project)) this.#refresh();
      }
    })();
  }

  /** Works the set of folders out again: one at a time, and once more for what came during it. */
  #refresh(): void {
    if (this.#closed) return;
    if (this.#refreshing) {
      this.#again = true;
      return;
    }
    this.#refreshing = (async () => {
      do {
        this.#again = false;
        try {
          await this.#rewatch();
        } catch (error) {
          this.#log(`Could not watch linked package folders: ${(error as Error).message}`);
        }
      } while (this.#again && !this.#closed);
      this.#refreshing = null;
    })();
  }

  /** Reads which linked folders the watched projects use, and watches them if they changed. */
  async #rewatch(): Promise<void> {
    const roots = new Map<string, Linked[]>();
    for (const project of this.#projects.keys()) {
      let ids: string[];
      try {
        ids = await readDeclaredIds(project);
      } catch {
        continue; // A folder gone or a list unreadable: nothing of it to watch.
      }
      for (const id of ids) {
        const dirs = new Set<string>();
        const ref = await readPackageRef(this.#kv, id);
        if (ref?.source === "folder") dirs.add(ref.dir);
        // A linked version the project approved keeps serving while a wider one waits.
        const approved = (await readApproval(this.#kv, project, id))?.ref;
        if (approved?.source === "folder") dirs.add(approved.dir);
        for (const dir of dirs) {
          const linked = roots.get(dir) ?? [];
          linked.push({ project, id });
          roots.set(dir, linked);
        }
      }
    }
    let wanted: string[] = [];
    let over = false;
    for (const root of roots.keys()) {
      for (const path of await foldersOf(root)) {
        if (wanted.includes(path)) continue;
        if (wanted.length >= this.#maxFolders) {
          over = true;
          break;
        }
        wanted.push(path);
      }
    }
    if (over && !this.#boundTold) {
      this.#boundTold = true;
      this.#log(
        `Watching ${this.#maxFolders} linked package folders, the most at once; ` +
          "changes to the others show when the window reads them again",
      );
    }
    if (this.#closed || this.#projects.size === 0) return;
    this.#roots = roots;
    wanted.sort();
    if (sameList(wanted, this.#paths) && this.#watcher) return;
    this.#watcher?.close();
    this.#watcher = null;
    this.#paths = [];
    if (wanted.length === 0) return;
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs(wanted, { recursive: false });
    } catch (error) {
      // A folder went between looking and watching: looked at again once the rest is watched.
      const there = await existing(wanted);
      if (this.#closed || this.#projects.size === 0) return;
      this.#log(
        `Could not watch ${wanted.length - there.length} linked package folder(s): ` +
          `${(error as Error).message}`,
      );
      if (there.length === 0) return;
      try {
        watcher = Deno.watchFs(there, { recursive: false });
      } catch {
        return;
      }
      wanted = there;
    }
    this.#watcher = watcher;
    this.#paths = wanted;
    void this.#listen(watcher);
  }

  /** Takes a watcher's changes until it is closed. */
  async #listen(watcher: Deno.FsWatcher): Promise<void> {
    try {
      for await (const event of watcher) {
        // Reading a file is not changing it.
        if (event.kind === "access") continue;
        for (const path of event.paths) {
          for (const root of this.#roots.keys()) {
            if (path === root || path.startsWith(root + sep)) this.#changed.add(root);
          }
        }
        if (this.#changed.size > 0 && this.#settle === undefined) {
          this.#settle = setTimeout(() => this.#tell(), this.#settleMs);
        }
      }
    } catch (error) {
      if (this.#watcher === watcher) {
        this.#log(`Stopped watching linked package folders: ${(error as Error).message}`);
      }
    }
  }

  /** Tells each changed package once, in each project that watches it, then looks again. */
  #tell(): void {
    this.#settle = undefined;
    const changed = [...this.#changed];
    this.#changed.clear();
    const told = new Set<string>();
    for (const root of changed) {
      for (const { project, id } of this.#roots.get(root) ?? []) {
        const key = `${project}\0${id}`;
        if (told.has(key)) continue;
        told.add(key);
        this.#bus.publish({ type: "package-changed", project, packageId: id });
      }
    }
    // A folder that went, came back or was made (a first build's `service/`) changes what to watch.
    this.#refresh();
  }
}

/**
 * The folders to watch for a package folder: itself and the folders of the
 * files its manifest names, those that exist; its parent when it is gone.
 */
async function foldersOf(root: string): Promise<string[]> {
  if (!(await isFolder(root))) {
    const parent = dirname(root);
    return parent !== root && (await isFolder(parent)) ? [parent] : [];
  }
  const folders = [root];
  let named: string[] = [];
  try {
    const manifest = await readManifestAt(root);
    named = [manifest.service, manifest.ui, manifest.prompt, ...(manifest.types ?? [])]
      .filter((file): file is string => typeof file === "string");
  } catch { /* unreadable now: the folder itself is watched, and read again when it changes */ }
  for (const file of named) {
    const dir = resolve(root, dirname(file));
    const inside = relative(root, dir);
    if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) continue;
    // Each folder on the way, so a folder made later (a first build) is seen.
    let step = root;
    for (const part of inside.split(sep)) {
      step = join(step, part);
      if (!folders.includes(step) && (await isFolder(step))) folders.push(step);
    }
  }
  return folders;
}

async function existing(paths: string[]): Promise<string[]> {
  const there: string[] = [];
  for (const path of paths) if (await isFolder(path)) there.push(path);
  return there;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
