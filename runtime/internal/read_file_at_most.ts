/**
 * Reading a file that may not be what it seems (a device, a file that grows)
 * without taking in more than a limit.
 *
 * @module
 */
import { readChunksAtMost } from "./read_chunks_at_most.ts";

/** Options for {@linkcode readFileAtMost}. */
export interface ReadFileAtMostOptions {
  /**
   * Told what the opened file is before a byte of it is read, and may throw
   * to refuse it: a path checked before it was opened may lead elsewhere by
   * the time it is (a folder on the way swapped for a link), and the opened
   * file is the one that is read.
   */
  opened?: (info: Deno.FileInfo) => Promise<void>;
}

/**
 * Reads a regular file's bytes, at most `maxBytes` of them.
 *
 * @param path The file.
 * @param maxBytes The most it may hold.
 * @param options A check of the opened file.
 * @returns Its bytes, or null when it holds more than `maxBytes`.
 */
export async function readFileAtMost(
  path: string | URL,
  maxBytes: number,
  options: ReadFileAtMostOptions = {},
): Promise<Uint8Array<ArrayBuffer> | null> {
  using file = await Deno.open(path, { read: true });
  if (options.opened) await options.opened(await file.stat());
  return await readChunksAtMost((buffer) => file.read(buffer), maxBytes);
}
