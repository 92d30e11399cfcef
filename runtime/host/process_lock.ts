/**
 * How one process tells whether another still runs: each process that runs
 * handler calls holds an OS lock on a file of its own,
 * `<home>/running/<id>.lock`, for as long as it runs, and its claims name that
 * id. The OS lets go of the lock however the process ends — `kill -9` and a
 * power cut included — so a lock another process can take again belongs to a
 * process that is gone.
 *
 * Why a lock and not the pid: pids are reused, and what would tell a reused
 * pid from the original (the process's start time under `/proc`) is closed to
 * a Deno process that runs without `--allow-all`. The lock needs only the
 * installation folder, which every command may write, and works the same on
 * every system Deno runs on.
 *
 * @module
 */
import { join } from "node:path";
import { newId } from "../internal/id.ts";

/** A process that runs handler calls, as its claims name it. */
export interface ProcessMark {
  /** Names the process's lock file. */
  id: string;
  /** Its pid, for messages only: nothing is concluded from it. */
  pid: number;
}

/** The folder of the lock files, in the installation folder. */
function locksFolder(home: string): string {
  return join(home, "running");
}

/** A lock file's path. */
function lockFile(home: string, id: string): string {
  return join(locksFolder(home), `${id}.lock`);
}

/**
 * The lock this process holds while it runs handler calls in an installation,
 * and the means to ask whether another process's lock is still held.
 */
export class ProcessLock {
  /** This process, as its claims name it. */
  readonly mark: ProcessMark;
  #home: string;
  #file: Deno.FsFile | null;

  private constructor(home: string, mark: ProcessMark, file: Deno.FsFile | null) {
    this.#home = home;
    this.mark = mark;
    this.#file = file;
  }

  /**
   * Takes a lock of this process's own in the installation. Never throws:
   * where no lock file can be made (a folder this process cannot write), the
   * answer holds none, and the claims it names are judged by their expiry alone.
   *
   * @param home The installation folder.
   */
  static async take(home: string): Promise<ProcessLock> {
    const mark: ProcessMark = { id: newId(Date.now()), pid: Deno.pid };
    let file: Deno.FsFile | null = null;
    try {
      await Deno.mkdir(locksFolder(home), { recursive: true });
      file = await Deno.open(lockFile(home, mark.id), {
        read: true,
        write: true,
        createNew: true,
      });
      if (!(await file.tryLock(true))) throw new Error("taken");
    } catch {
      try {
        file?.close();
      } catch { /* not open */ }
      file = null;
    }
    return new ProcessLock(home, mark, file);
  }

  /** Whether this process holds its lock, so that others can tell when it is gone. */
  get held(): boolean {
    return this.#file !== null;
  }

  /**
   * Whether the process a claim names has stopped.
   *
   * @param mark The process, as the claim names it.
   * @returns `true` when it is known to be gone (its lock is free, or its lock
   *   file is gone); `false` when it runs; `null` when this cannot be told
   *   (it held no lock, or the folder cannot be read).
   */
  async isGone(mark: ProcessMark): Promise<boolean | null> {
    if (mark.id === this.mark.id) return false;
    let file: Deno.FsFile;
    try {
      file = await Deno.open(lockFile(this.#home, mark.id), { read: true, write: true });
    } catch (error) {
      // A process that held a lock removes its file only once it let go of its claims.
      return error instanceof Deno.errors.NotFound ? true : null;
    }
    try {
      if (!(await file.tryLock(true))) return false;
      await file.unlock();
    } catch {
      return null;
    } finally {
      file.close();
    }
    // Its process is gone: the file is no longer anybody's.
    await Deno.remove(lockFile(this.#home, mark.id)).catch(() => {});
    return true;
  }

  /**
   * Removes the lock files of processes that are gone and held no claim any
   * more (each process that was killed leaves one).
   *
   * @returns How many were removed.
   */
  async sweep(): Promise<number> {
    let removed = 0;
    try {
      for await (const entry of Deno.readDir(locksFolder(this.#home))) {
        if (!entry.isFile || !entry.name.endsWith(".lock")) continue;
        const id = entry.name.slice(0, -".lock".length);
        if (await this.isGone({ id, pid: 0 }) === true) removed++;
      }
    } catch { /* no folder yet */ }
    return removed;
  }

  /** Lets go of the lock and removes its file: this process runs no more calls. */
  release(): void {
    if (this.#file === null) return;
    try {
      Deno.removeSync(lockFile(this.#home, this.mark.id));
    } catch { /* already gone */ }
    try {
      this.#file.close();
    } catch { /* already closed */ }
    this.#file = null;
  }
}
