/**
 * Staging: where an archive is unpacked and checked before it is renamed
 * into the package store, `<home>/extensions/store/.staging/<name>/`.
 *
 * An install holds an OS lock on `<name>.lock` beside its staging folder for
 * as long as the folder is its own; the OS lets go of the lock however the
 * process ends, `kill -9` included. A staging folder whose lock nobody holds
 * was left by an install that is gone, and {@linkcode sweepStaleStaging}
 * removes it: at the start of every install and when `serve` starts. A
 * folder an install is using is never touched, however long it takes.
 *
 * @module
 */
import { join } from "node:path";

/** The folder staging folders are made in. */
function stagingRoot(home: string): string {
  return join(home, "extensions", "store", ".staging");
}

/** The lock file of the staging folder `name`. */
function lockFile(root: string, name: string): string {
  return join(root, `${name}.lock`);
}

/**
 * The staging folder an entry of the staging root belongs to: the entry
 * itself, or the folder an archive was being unpacked into
 * (`.<name>.unpacking-<uuid>`, renamed to `<name>` once complete).
 */
function ownerOf(entry: string): string {
  return /^\.(.+)\.unpacking-[0-9a-f-]+$/.exec(entry)?.[1] ?? entry;
}

/** A staging folder this process holds while an install unpacks and checks an archive. */
export interface Staging {
  /** The folder to unpack into; it does not exist yet. */
  readonly dir: string;
  /** Removes what is left of the folder, lets go of the lock and removes the lock file. */
  release(): Promise<void>;
}

/**
 * Takes a staging folder: its lock is held before the folder exists, so a
 * sweep never sees the folder unheld while the install lives.
 *
 * @param home The installation folder.
 * @param name A name no other install uses (the archive's digest and a random part).
 */
export async function takeStaging(home: string, name: string): Promise<Staging> {
  const root = stagingRoot(home);
  await Deno.mkdir(root, { recursive: true });
  const lockPath = lockFile(root, name);
  const lock = await Deno.open(lockPath, { read: true, write: true, createNew: true });
  await lock.lock(true);
  const dir = join(root, name);
  return {
    dir,
    async release() {
      await Deno.remove(dir, { recursive: true }).catch(() => {/* renamed into the store */});
      await Deno.remove(lockPath).catch(() => {});
      lock.close();
      await Deno.remove(root).catch(() => {/* another install stages there */});
    },
  };
}

/**
 * Removes every staging folder no live install holds: what an install killed
 * while it unpacked or checked an archive left behind.
 *
 * @param home The installation folder.
 * @returns The staging folders removed (each as its path), in name order.
 */
export async function sweepStaleStaging(home: string): Promise<string[]> {
  const root = stagingRoot(home);
  const owners = new Map<string, string[]>();
  try {
    for await (const entry of Deno.readDir(root)) {
      const owner = entry.name.endsWith(".lock") ? entry.name.slice(0, -5) : ownerOf(entry.name);
      owners.set(owner, [...owners.get(owner) ?? [], entry.name]);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const removed: string[] = [];
  for (const [owner, entries] of [...owners].sort(([a], [b]) => a < b ? -1 : 1)) {
    const lockPath = lockFile(root, owner);
    let lock: Deno.FsFile;
    try {
      lock = await Deno.open(lockPath, { read: true, write: true, create: true });
    } catch {
      continue;
    }
    try {
      // Held: an install that is alive is using it.
      if (!await lock.tryLock(true)) continue;
      for (const entry of entries) {
        if (entry === `${owner}.lock`) continue;
        await Deno.remove(join(root, entry), { recursive: true }).catch(() => {});
      }
      if (entries.some((entry) => entry !== `${owner}.lock`)) removed.push(join(root, owner));
      await Deno.remove(lockPath).catch(() => {});
    } finally {
      lock.close();
    }
  }
  await Deno.remove(root).catch(() => {/* an install stages there */});
  return removed;
}
