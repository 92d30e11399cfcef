/**
 * The project memories one process holds open. A memory belongs to the folder
 * at a path, not to the path: when the folder is removed and another made in
 * its place, the file open under the old name is a deleted one, and writing
 * into it would lose every write while saying `ok`. So before a memory is
 * handed out, the file under `<project>/.sync/memory.kv` is compared with the
 * one open (device and inode); a different or missing file closes the old
 * handle and opens what is there now.
 *
 * A memory is also let go of as soon as its project folder goes, by itself or
 * with a folder above it: while it is held, every folder above the project is
 * watched (each one's own entries, not what is below them), and when one on
 * the way down to the project is removed or moved, the file under the
 * memory's path is compared with the one open, and the handle closed at once
 * when it is gone or another. A deleted file held open keeps its disk space
 * used and its disk busy (it cannot be unmounted) for as long as it is held.
 *
 * A memory whose write the disk refused as read-only is let go of too: Deno
 * KV opens a file it may not write read-only and stays so, so once the disk
 * is writable again, only a memory opened afresh takes writes. For the same
 * reason a memory opened while its file could not be written (a read on a
 * read-only disk) is noted as such, and each time it is handed out the file
 * is tried for writing again: once it can be, the memory is opened afresh,
 * so the first write after the disk is made writable is taken.
 *
 * @module
 */
import { dirname, sep } from "node:path";
import type { StorageError } from "../errors.ts";
import { openProjectMemory, type OpenProjectMemoryOptions, projectMemoryPath } from "./store.ts";

/** Options for {@linkcode ProjectMemories}. */
export interface ProjectMemoriesOptions {
  /** Where a notice goes when a memory is reopened because its file changed. */
  log?: (line: string) => void;
}

/** Which file a path named: the device and inode numbers, where the system has them. */
interface FileIdentity {
  dev: number;
  ino: number | null;
}

interface HeldMemory {
  kv: Deno.Kv;
  identity: FileIdentity | null;
  /** Watches the folders above the project while the memory is held; null where it cannot be. */
  watcher: Deno.FsWatcher | null;
  /** Settles once the watch has ended. */
  watching: Promise<void>;
  /** Whether the file could not be opened for writing when the memory was opened. */
  readOnly: boolean;
}

// A file replaced between opening it and reading its identity would pair the
// old handle with the new identity; opening again settles it.
const OPEN_ATTEMPTS = 3;

/**
 * Project memories opened once per process and checked against the file under
 * their path each time one is handed out.
 *
 * @example
 * ```ts
 * const memories = new ProjectMemories();
 * const memory = await memories.open("/home/ada/site");
 * // …the folder is removed and made again: the next open answers its new memory.
 * await memories.close();
 * ```
 */
export class ProjectMemories {
  #held = new Map<string, HeldMemory>();
  /** Watches closed but maybe not yet ended; closing waits for them. */
  #ending = new Set<Promise<void>>();
  #turns = new Map<string, Promise<unknown>>();
  #log: (line: string) => void;

  /**
   * Holds no memory until one is asked for.
   *
   * @param options Where reopening notices go.
   */
  constructor(options: ProjectMemoriesOptions = {}) {
    this.#log = options.log ?? (() => {});
  }

  /**
   * The project's memory, opened (and `.sync/` made) when this process has
   * none open, and opened afresh when the file under the path is no longer
   * the one it holds. The caller does not close it.
   *
   * @param project The project's resolved folder.
   * @throws {NotFoundError} when the project folder is gone.
   */
  open(project: string): Promise<Deno.Kv> {
    // One at a time per project, so two calls never both reopen a changed file.
    return this.#inTurn(project, async () => {
      const path = projectMemoryPath(project);
      const held = this.#held.get(project);
      if (held) {
        const now = identityNow(path);
        const same = now !== null && sameFile(held.identity, now);
        if (same && !(held.readOnly && writableNow(path))) return held.kv;
        this.#held.delete(project);
        this.#letGo(held);
        this.#log(
          same
            ? `[memory] ${path} can be written now; the memory opened read-only was closed ` +
              `and opened afresh`
            : `[memory] ${path} is ${
              now === null ? "gone" : "another file now"
            }; the memory open under that name was closed and the one there now is used`,
        );
      }
      let opened: HeldMemory | null = null;
      const onStorageFailure = (refusal: StorageError) => {
        if (refusal.problem === "read-only" && opened !== null) {
          void this.#letGoReadOnly(project, opened);
        }
      };
      opened = await openChecked(project, { onStorageFailure });
      this.#held.set(project, opened);
      this.#watch(project, opened);
      return opened.kv;
    });
  }

  /**
   * Closes and forgets a project's memory (its folder is gone, or an install
   * removes the memory it made); the next {@linkcode ProjectMemories.open}
   * opens it afresh.
   *
   * @param project The project's resolved folder.
   */
  forget(project: string): Promise<void> {
    return this.#inTurn(project, () => {
      const held = this.#held.get(project);
      this.#held.delete(project);
      if (held) this.#letGo(held);
      return Promise.resolve();
    });
  }

  /**
   * Whether a memory of the project is held open now.
   *
   * @param project The project's resolved folder.
   */
  holds(project: string): boolean {
    return this.#held.has(project);
  }

  /** Closes every memory held, and stops watching their folders. */
  async close(): Promise<void> {
    await Promise.all([...this.#turns.values()].map((turn) => turn.catch(() => {})));
    for (const held of this.#held.values()) this.#letGo(held);
    this.#held.clear();
    await Promise.all(this.#ending);
  }

  /** Closes a held memory and stops watching its folder. */
  #letGo(held: HeldMemory): void {
    try {
      held.watcher?.close();
    } catch {
      // Already closed.
    }
    held.watcher = null;
    const ending = held.watching;
    this.#ending.add(ending);
    ending.then(() => this.#ending.delete(ending));
    closeQuietly(held.kv);
  }

  /**
   * Watches every folder above the project while `held` is its memory: their
   * own entries only, so the memory's own writes and the work inside the
   * project wake nothing. (A watch on the project folder itself misses its
   * removal while files in it are held open, as the memory's are; the folder
   * holding it sees it go, and the folders above see a folder on the way
   * down removed or moved, which no watch below them is told of.)
   */
  #watch(project: string, held: HeldMemory): void {
    try {
      held.watcher = Deno.watchFs(foldersAbove(project), { recursive: false });
    } catch (error) {
      // No watch (the system's limit on watches, say): the check at the next
      // open still finds the folder gone; the handle is held until then.
      this.#log(
        `[memory] ${project} cannot be watched (${(error as Error).message}); its memory is ` +
          `closed when it is next used after the folder goes, not at once`,
      );
      return;
    }
    const watching = async (watcher: Deno.FsWatcher) => {
      for await (const event of watcher) {
        if (event.paths.some((path) => onTheWayTo(project, path))) {
          await this.#letGoWhenGone(project, held);
        }
      }
    };
    held.watching = watching(held.watcher).catch(() => {});
  }

  /** Closes `held` after the disk refused a write to it as read-only; the next open opens afresh. */
  #letGoReadOnly(project: string, held: HeldMemory): Promise<void> {
    return this.#inTurn(project, () => {
      if (this.#held.get(project) === held) {
        this.#held.delete(project);
        this.#letGo(held);
        this.#log(
          `[memory] ${projectMemoryPath(project)} refused a write as read-only; the memory ` +
            `open under that name was closed, and the next call opens it afresh`,
        );
      }
      return Promise.resolve();
    });
  }

  /** Closes `held` when the file under its path is no longer the one it holds. */
  #letGoWhenGone(project: string, held: HeldMemory): Promise<void> {
    return this.#inTurn(project, () => {
      if (this.#held.get(project) !== held) return Promise.resolve();
      const path = projectMemoryPath(project);
      let now: FileIdentity | null;
      try {
        now = identityNow(path);
      } catch {
        now = null;
      }
      if (now !== null && sameFile(held.identity, now)) return Promise.resolve();
      this.#held.delete(project);
      this.#letGo(held);
      this.#log(
        `[memory] ${path} is ${now === null ? "gone" : "another file now"}; the memory open ` +
          `under that name was closed at once`,
      );
      return Promise.resolve();
    });
  }

  #inTurn<T>(project: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#turns.get(project) ?? Promise.resolve();
    const result = previous.then(work, work);
    const turn = result.catch(() => {});
    this.#turns.set(project, turn);
    turn.then(() => {
      if (this.#turns.get(project) === turn) this.#turns.delete(project);
    });
    return result;
  }
}

/** Every folder above `project`, from the one holding it up to the filesystem root. */
function foldersAbove(project: string): string[] {
  const folders: string[] = [];
  for (let folder = dirname(project); !folders.includes(folder); folder = dirname(folder)) {
    folders.push(folder);
  }
  return folders;
}

/** Whether `path` is the project folder or a folder on the way down to it. */
function onTheWayTo(project: string, path: string): boolean {
  return path === project || project.startsWith(path.endsWith(sep) ? path : path + sep);
}

async function openChecked(
  project: string,
  options: OpenProjectMemoryOptions,
): Promise<HeldMemory> {
  const path = projectMemoryPath(project);
  for (let attempt = 1;; attempt++) {
    const before = await identityOf(path);
    // Asked before opening: a disk made writable in between only costs one reopen.
    const readOnly = !writableNow(path);
    const kv = await openProjectMemory(project, options);
    const identity = await identityOf(path);
    const held = { kv, identity, watcher: null, watching: Promise.resolve(), readOnly };
    if (identity !== null && (before === null || sameFile(before, identity))) return held;
    if (attempt === OPEN_ATTEMPTS) return held;
    closeQuietly(kv);
  }
}

async function identityOf(path: string): Promise<FileIdentity | null> {
  try {
    const { dev, ino } = await Deno.stat(path);
    return { dev, ino };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * {@linkcode identityOf} as one synchronous `stat`: asked at every handler
 * call, where an asynchronous operation around one system call costs more
 * than the call.
 */
function identityNow(path: string): FileIdentity | null {
  try {
    const { dev, ino } = Deno.statSync(path);
    return { dev, ino };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * Whether the file at `path` can be opened for writing now (one open and
 * close); a file not there yet is made by opening the memory, so counts as
 * writable. Deno KV opens a file it may not write read-only without a word.
 */
function writableNow(path: string): boolean {
  try {
    Deno.openSync(path, { read: true, write: true }).close();
    return true;
  } catch (error) {
    return error instanceof Deno.errors.NotFound;
  }
}

/** Where the system gives no inode numbers, a file that is there is taken to be the one open. */
function sameFile(open: FileIdentity | null, now: FileIdentity): boolean {
  if (open === null || open.ino === null || now.ino === null) return true;
  return open.dev === now.dev && open.ino === now.ino;
}

function closeQuietly(kv: Deno.Kv): void {
  try {
    kv.close();
  } catch {
    // Already closed.
  }
}
