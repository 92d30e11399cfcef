/**
 * Opening a file that was found by following a path, such that the file
 * opened is the one found: a folder on the way, or the file itself, swapped
 * for a link between the finding and the opening is not opened through.
 *
 * The system names the process's current folder in one look (`getcwd`). So
 * the file's folder is entered and its system name compared with the one
 * found; the file is looked at by its last segment (`lstat`, never following
 * it) and must be a regular file; it is opened (`O_NOFOLLOW`, `O_NONBLOCK`),
 * and the file opened must be that very file (device and inode), with the
 * folder still named where it was found; then the process's folder is put
 * back. All of it runs synchronously, so no other code of this thread runs
 * while the process is elsewhere; Sync names every path it uses absolutely.
 *
 * What this does not give: Deno, given some permissions rather than all,
 * opens a relative name by the folder's absolute path, links on it followed,
 * so the looks are several, microseconds apart, not one. A folder swapped
 * for a link and back between them, twice within those microseconds, could
 * still pass. (`/proc/self/fd`, the other way to ask the system what an open
 * file is, Deno lets a program read only with every permission.)
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, read, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import { promisify } from "node:util";
import { readChunksAtMost } from "./read_chunks_at_most.ts";

/**
 * Read-only, no last link followed (a file swapped for a link is refused,
 * not read through), and no wait on a FIFO swapped in (it opens at once and
 * is refused for what it is).
 */
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

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
export function openWhereFound(real: string): OpenedFile | NotWhereFound {
  const found = openInFolder(dirname(real), basename(real));
  if (typeof found === "string") return found;
  const { fd, info } = found;
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    info: { dev: info.dev, ino: info.ino, size: info.size, isFile: true },
    readAtMost: async (maxBytes) => {
      try {
        return await readFdAtMost(fd, maxBytes);
      } catch (error) {
        close();
        throw error;
      }
    },
    close,
  };
}

/**
 * Enters `folder`, checks the system's name for it, and opens `name` in it
 * when it is the regular file looked at there; puts the process back.
 *
 * Deno given some permissions rather than all opens a relative name by the
 * absolute path of the process's folder, with the links on it followed. So
 * the file is looked at first (`lstat`, which never follows the name itself)
 * and must be a regular file; the file opened must be that very file (device
 * and inode: a name swapped for a link opens another); and the process's
 * folder must still be named where it was found after the open.
 */
function openInFolder(
  folder: string,
  name: string,
): { fd: number; info: Stats } | NotWhereFound {
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
    const seen = Deno.lstatSync(name);
    if (seen.isSymlink) return "moved";
    if (!seen.isFile) return "not a file";
    let fd: number;
    try {
      fd = openSync(name, FLAGS);
    } catch (error) {
      // ELOOP: the file itself became a link since it was looked at.
      if ((error as { code?: string }).code === "ELOOP") return "moved";
      throw error;
    }
    const info = fstatSync(fd);
    if (
      !info.isFile() || info.dev !== seen.dev || info.ino !== seen.ino || Deno.cwd() !== folder
    ) {
      closeSync(fd);
      return "moved";
    }
    return { fd, info };
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

function readFdAtMost(fd: number, maxBytes: number): Promise<Uint8Array | null> {
  return readChunksAtMost(
    async (buffer) => (await readAsync(fd, buffer, 0, buffer.length, null)).bytesRead,
    maxBytes,
  );
}
