/**
 * Opening a file that was found by following a path, such that the file
 * opened is the one found: a folder on the way swapped for a link between
 * the finding and the opening is not opened through.
 *
 * The system names an open folder in one look for the process's current
 * folder (`getcwd`), and opens a name relative to it without following
 * anything (`O_NOFOLLOW`). So the file's folder is entered, its system name
 * compared with the one found, and the file opened by its last segment
 * alone; then the process's folder is put back. All of it runs
 * synchronously, so no other code of this thread runs while the process is
 * elsewhere. (`/proc/self/fd`, the other way to ask the system what an open
 * file is, is readable by a Deno program only with every permission.)
 * Sync names every path it uses absolutely, so the moment elsewhere moves
 * nothing another thread reads.
 *
 * @module
 */
import { closeSync, constants, fstat, openSync, read } from "node:fs";
import { basename, dirname } from "node:path";
import { promisify } from "node:util";

/**
 * Read-only, no last link followed (a file swapped for a link is refused,
 * not read through), and no wait on a FIFO swapped in (it opens at once and
 * is refused for what it is).
 */
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

const fstatAsync = promisify(fstat);
const readAsync = promisify(read);

/** Why a file could not be opened as found. */
export type NotWhereFound = "moved" | "not a file";

/** A file opened where it was found. */
export interface OpenedFile {
  /** What the open file is (`fstat`). */
  info: { dev: number; ino: number; size: number; isFile: boolean };
  /** Reads it to its end, at most `maxBytes`; null when it holds more. */
  readAtMost(maxBytes: number): Promise<Uint8Array | null>;
  /** Closes it. */
  close(): void;
}

/**
 * Opens the file at `real` (a real path: links already followed) when it is
 * still there, a regular file, reached with no link on the way.
 *
 * @param real The real path the file was found at.
 * @returns The open file, or why it is not opened: `"moved"` when the path no
 * longer leads to a file where it was found (a folder on the way, or the file
 * itself, is now a link, or was moved), `"not a file"` for a FIFO, a device, a
 * folder.
 * @throws Node's file system errors (`ENOENT`, `EACCES`, …) as they come.
 */
export async function openWhereFound(real: string): Promise<OpenedFile | NotWhereFound> {
  const fd = openInFolder(dirname(real), basename(real));
  if (fd === "moved") return fd;
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    const stat = await fstatAsync(fd);
    if (!stat.isFile()) {
      close();
      return "not a file";
    }
    return {
      info: { dev: stat.dev, ino: stat.ino, size: stat.size, isFile: true },
      readAtMost: (maxBytes) => readFdAtMost(fd, maxBytes),
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}

/** Enters `folder`, checks the system's name for it, opens `name` in it; puts the process back. */
function openInFolder(folder: string, name: string): number | "moved" {
  const home = processFolder();
  try {
    try {
      Deno.chdir(folder);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        return "moved";
      }
      throw error;
    }
    // The system's own name for the folder now entered: where it is, whatever path led here.
    if (Deno.cwd() !== folder) return "moved";
    try {
      return openSync(name, FLAGS);
    } catch (error) {
      // ELOOP: the file itself became a link since it was found.
      if ((error as { code?: string }).code === "ELOOP") return "moved";
      throw error;
    }
  } finally {
    try {
      Deno.chdir(home);
    } catch {
      // The process's folder went meanwhile: it stays where it is, as good as any other.
    }
  }
}

/** The process's folder; `/` when it was removed (the system names it no more). */
function processFolder(): string {
  try {
    return Deno.cwd();
  } catch {
    return "/";
  }
}

async function readFdAtMost(fd: number, maxBytes: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Read as it comes rather than by the size looked at first: a file may grow meanwhile.
  while (true) {
    const chunk = new Uint8Array(64 * 1024);
    const { bytesRead } = await readAsync(fd, chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) return null;
    chunks.push(chunk.subarray(0, bytesRead));
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of chunks) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
