/**
 * Reading a source a chunk at a time, as it comes, without taking in more
 * than a limit: what reading a file that may grow, or be a device, needs
 * whatever opened it.
 *
 * @module
 */

/** The size of one read. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Reads `read` to its end, at most `maxBytes`.
 *
 * @param read Fills the buffer from the source; answers how many bytes it put there, 0 or null at
 *   the end.
 * @param maxBytes The most the source may hold.
 * @returns Its bytes, or null when it holds more than `maxBytes`.
 */
export async function readChunksAtMost(
  read: (buffer: Uint8Array) => Promise<number | null>,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Read as it comes rather than by the size looked at first: a file may grow meanwhile.
  while (true) {
    const chunk = new Uint8Array(CHUNK_BYTES);
    const n = await read(chunk);
    if (!n) break;
    total += n;
    if (total > maxBytes) return null;
    chunks.push(chunk.subarray(0, n));
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of chunks) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
