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
 * it is — a serve also says, once it answers, its socket and the port of its
 * app — so that a process that finds the lock held knows whether to send its
 * command to a serve or to wait its turn, and can tell the person what it
 * waits for. The note is believed only while the lock is held: an owner that
 * was killed leaves its note behind, naming a port anybody may take since.
 *
 * @module
 */
import { join } from "../internal/posix_path.ts";
import { privateInstallationFolder } from "./home.ts";
import { storageFailure } from "../storage_failure.ts";
import { assertThisUsers } from "./this_user.ts";

/** What the owner says about itself in `<home>/owner.json`. */
export interface OwnerNote {
  /** The owning process. */
  pid: number;
  /** The `sync` command it runs, such as `serve` or `call`. */
  command: string;
  /** When it took the installation, as an ISO 8601 time. */
  since: string;
  /** The port on 127.0.0.1 a serve's app answers on, once it listens: for the browser only. */
  port?: number;
  /**
   * The socket a serve answers its clients on (`ownerSocketPath`), once
   * everything answers: the CLI and `sync mcp` reach it there, never on the port.
   */
  socket?: string;
}

/** Holding an installation; see {@linkcode tryOwnInstallation}. */
export interface InstallationOwnership {
  /** Says more about the owner, such as where a serve answers once it does. */
  tell(more: Partial<Pick<OwnerNote, "port" | "socket">>): Promise<void>;
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
 * @throws {UnsafeFileError} when the folder or its lock belongs to another user.
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
    await assertOwnLock(home, file);
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
    if (note.socket !== undefined && typeof note.socket !== "string") return null;
    return note;
  } catch {
    return null;
  }
}

/** Who owns an installation at one moment; see {@linkcode findInstallationOwner}. */
export interface OwnerNow {
  /** True while a process holds the lock. */
  held: boolean;
  /** The holder's note; null when nobody holds the lock, or the holder has not written it yet. */
  note: OwnerNote | null;
  /** The note an owner that was killed left, found with the lock free and removed; else null. */
  left: OwnerNote | null;
}

/**
 * Who owns the installation, without becoming its owner: the note is
 * answered only while its lock is held. A note found with the lock free was
 * left by an owner that was killed (its port may be anybody's by now); it is
 * removed, the lock being held for that moment, and said as `left`.
 *
 * @param home The installation folder.
 * @throws {UnsafeFileError} when the folder or its lock belongs to another user.
 * @throws {StorageError} when its lock cannot be opened: the folder is read-only, full or gone.
 */
export async function findInstallationOwner(home: string): Promise<OwnerNow> {
  let file: Deno.FsFile;
  try {
    // Another user's folder is refused before its lock or its note is looked at.
    await assertThisUsers(home, await Deno.stat(home), "set SYNC_HOME to a folder of your own");
    file = await Deno.open(lockPath(home), { read: true, write: true });
  } catch (error) {
    // No folder or no lock file: this installation was never owned.
    if (error instanceof Deno.errors.NotFound) return { held: false, note: null, left: null };
    // The lock is opened for writing even to look, as its owner opens it: a
    // read-only or full folder is the disk's refusal, told as such.
    throw storageFailure(error, lockPath(home)) ?? error;
  }
  try {
    await assertOwnLock(home, file);
    if (!await file.tryLock(true)) {
      return { held: true, note: await readInstallationOwner(home), left: null };
    }
    // Nobody owns it, and nobody can while this lock is held: a note is what a killed owner left.
    const left = await readInstallationOwner(home);
    if (left) await Deno.remove(notePath(home)).catch(() => {/* already gone */});
    return { held: false, note: null, left };
  } finally {
    file.close();
  }
}

/**
 * Refuses a lock another user made: whoever holds it would be believed the
 * installation's owner, and its note would say where to send the token.
 */
async function assertOwnLock(home: string, file: Deno.FsFile): Promise<void> {
  await assertThisUsers(
    lockPath(home),
    await file.stat(),
    "no process of yours made it, so it is not trusted: remove it and run the command again",
  );
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
