/**
 * Test helper: a small file system of its own (a tmpfs), to meet a full or
 * read-only disk for real. Mounting needs root (or the right capability); a
 * system that refuses it answers why, for the test to say it skipped.
 *
 * @module
 */

/** A small mounted file system. */
export interface SmallDisk {
  /** Where it is mounted. */
  path: string;
  /** Fills it until the system says it is full; answers the filler file's path. */
  fill(): Promise<string>;
  /** Mounts it again read-only (no file on it may be open for writing) or read-write. */
  remount(mode: "ro" | "rw"): Promise<void>;
  /** Unmounts it and removes its mount point. */
  close(): Promise<void>;
}

/**
 * Mounts a tmpfs of `kib` KiB in a new temporary folder.
 *
 * @param kib Its size, in KiB.
 * @returns The disk, or why it could not be mounted here.
 */
export async function smallDisk(kib: number): Promise<SmallDisk | string> {
  if (Deno.build.os !== "linux") return "only Linux mounts a tmpfs this way";
  const path = await Deno.makeTempDir({ prefix: "sync-small-disk-" });
  const mounted = await run("mount", ["-t", "tmpfs", "-o", `size=${kib}k`, "tmpfs", path]);
  if (mounted !== null) {
    await Deno.remove(path);
    return `this system does not let the tests mount a tmpfs (${mounted})`;
  }
  return {
    path,
    async fill() {
      const filler = `${path}/filler`;
      const file = await Deno.open(filler, { write: true, create: true });
      const block = new Uint8Array(4096);
      try {
        for (;;) await file.write(block);
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOSPC") throw error;
      } finally {
        file.close();
      }
      return filler;
    },
    async remount(mode) {
      const failed = await run("mount", ["-o", `remount,${mode}`, path]);
      if (failed !== null) throw new Error(`cannot remount ${path} ${mode}: ${failed}`);
    },
    async close() {
      // A file still open on it would keep it busy: it is then detached now
      // and freed when the file is closed.
      if (await run("umount", [path]) !== null) await run("umount", ["-l", path]);
      await Deno.remove(path).catch(() => {});
    },
  };
}

/** Runs a command; answers null when it succeeded, else what it said. */
async function run(command: string, args: string[]): Promise<string | null> {
  try {
    const { success, stderr } = await new Deno.Command(command, {
      args,
      stdout: "null",
      stderr: "piped",
    }).output();
    return success ? null : new TextDecoder().decode(stderr).trim() || `${command} failed`;
  } catch (error) {
    return (error as Error).message;
  }
}
