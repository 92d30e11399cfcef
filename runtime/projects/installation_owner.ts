/**
 * One owner per installation. A process owns an installation while it holds
 * the OS lock on `<home>/owner.lock`: `sync serve` for as long as it runs, a
 * CLI command for the length of that command when no serve runs. Only the
 * owner opens the installation's KV and the projects' memories, so claims,
 * rate limits and the clock are decided in one process rather than by two
 * racing on SQLite. The OS lets go of the lock however the owner ends, even
 * killed, so nothing stale is ever waited for.
 *
 * Beside the lock, the owner leaves a note in `<home>/owner.json` saying who
 * it is — a serve also says the port it listens on — so that a process that
 * finds the lock held knows whether to send its command to a serve or to
 * wait its turn, and can tell the person what it waits for.
 *
 * @module
 */
import { join } from "node:path";
import { privateInstallationFolder } from "./home.ts";
import { storageFailure } from "../storage_failure.ts";

/** What the owner says about itself in `<home>/owner.json`. */
export interface OwnerNote {
  /** The owning process. */
  pid: number;
  /** The `sync` command it runs, such as `serve` or `call`. */
  command: string;
  /** When it took the installation, as an ISO 8601 time. */
  since: string;
  /** The port on 127.0.0.1 a serve answers on, once it listens. */
  port?: number;
}

/** Holding an installation; see {@linkcode tryOwnInstallation}. */
export interface InstallationOwnership {
  /** Says more about the owner, such as the port a serve listens on once it does. */
  tell(more: Partial<Pick<OwnerNote, "port">>): Promise<void>;
  /** Takes back the note and lets go of the lock. */
  release(): Promise<void>;
}

/** The lock file. */
function lockPath(home: string): string {
  return join(home, "owner.lock");
}

/** The owner's note. */
function notePath(home: string): string {
  return join(home, "owner.json");
}

/**
 * Takes the installation if no other process owns it, and leaves the note.
 *
 * @param home The installation folder (made when missing).
 * @param command The `sync` command this process runs, for the note.
 * @returns The ownership, or null when another process owns the installation.
 */
export async function tryOwnInstallation(
  home: string,
  command: string,
): Promise<InstallationOwnership | null> {
  let file: Deno.FsFile;
  try {
    await privateInstallationFolder(home);
    file = await Deno.open(lockPath(home), { read: true, write: true, create: true });
  } catch (error) {
    throw storageFailure(error, lockPath(home)) ?? error;
  }
  let locked = false;
  try {
    locked = await file.tryLock(true);
  } finally {
    if (!locked) file.close();
  }
  if (!locked) return null;
  const note: OwnerNote = { pid: Deno.pid, command, since: new Date().toISOString() };
  try {
    await writeNote(home, note);
  } catch (error) {
    file.close();
    throw error;
  }
  let released = false;
  return {
    async tell(more) {
      Object.assign(note, more);
      await writeNote(home, note);
    },
    async release() {
      if (released) return;
      released = true;
      try {
        // Only this owner's note: it is taken back before the lock is let go,
        // so the next owner's note is never removed.
        await Deno.remove(notePath(home));
      } catch { /* already gone */ }
      file.close();
    },
  };
}

/**
 * Who owns the installation, by its note; null when there is no note or it
 * cannot be read. The note is only as good as the lock beside it: it is
 * left behind by an owner that was killed, so believe it only while
 * {@linkcode tryOwnInstallation} finds the lock held.
 *
 * @param home The installation folder.
 */
export async function readInstallationOwner(home: string): Promise<OwnerNote | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(notePath(home));
  } catch {
    return null;
  }
  try {
    const note = JSON.parse(text) as OwnerNote;
    if (!Number.isInteger(note?.pid) || typeof note.command !== "string") return null;
    if (note.port !== undefined && !Number.isInteger(note.port)) return null;
    return note;
  } catch {
    return null;
  }
}

/** Writes the note whole under another name and renames it, so no reader sees half of one. */
async function writeNote(home: string, note: OwnerNote): Promise<void> {
  const file = notePath(home);
  const temp = `${file}.${Deno.pid}`;
  try {
    await Deno.writeTextFile(temp, JSON.stringify(note) + "\n", { mode: 0o600 });
    await Deno.rename(temp, file);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw storageFailure(error, file) ?? error;
  }
}
