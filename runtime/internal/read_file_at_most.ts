/**
 * Reading a file that may not be what it seems (a device, a file that grows)
 * without taking in more than a limit.
 *
 * @module
 */

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
  const chunks: Uint8Array[] = [];
  const chunk = new Uint8Array(64 * 1024);
  let total = 0;
  // Read as it comes rather than by the size looked at first: a file may grow meanwhile.
  while (true) {
    const n = await file.read(chunk);
    if (n === null) break;
    total += n;
    if (total > maxBytes) return null;
    chunks.push(chunk.slice(0, n));
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of chunks) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
