/**
 * The project memories one process holds open. A memory belongs to the folder
 * at a path, not to the path: when the folder is removed and another made in
 * its place, the file open under the old name is a deleted one, and writing
 * into it would lose every write while saying `ok`. So before a memory is
 * handed out, the file under `<project>/.sync/memory.kv` is compared with the
 * one open (device and inode); a different or missing file closes the old
 * handle and opens what is there now.
 *
 * @module
 */
import { openProjectMemory, projectMemoryPath } from "./store.ts";

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
        if (now !== null && sameFile(held.identity, now)) return held.kv;
        this.#held.delete(project);
        closeQuietly(held.kv);
        this.#log(
          `[memory] ${path} is ${
            now === null ? "gone" : "another file now"
          }; the memory open under that name was closed and the one there now is used`,
        );
      }
      const opened = await openChecked(project);
      this.#held.set(project, opened);
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
      if (held) closeQuietly(held.kv);
      return Promise.resolve();
    });
  }

  /** Closes every memory held. */
  async close(): Promise<void> {
    await Promise.all([...this.#turns.values()].map((turn) => turn.catch(() => {})));
    for (const held of this.#held.values()) closeQuietly(held.kv);
    this.#held.clear();
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

async function openChecked(project: string): Promise<HeldMemory> {
  const path = projectMemoryPath(project);
  for (let attempt = 1;; attempt++) {
    const before = await identityOf(path);
    const kv = await openProjectMemory(project);
    const identity = await identityOf(path);
    if (identity !== null && (before === null || sameFile(before, identity))) {
      return { kv, identity };
    }
    if (attempt === OPEN_ATTEMPTS) return { kv, identity };
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
