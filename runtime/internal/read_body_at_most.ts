/**
 * Reading an HTTP answer's body without taking in more than a limit: counted
 * as the bytes arrive, whatever its headers say.
 *
 * @module
 */

/**
 * The body's text, read to its end, at most `maxBytes` bytes of it.
 *
 * @param response The answer.
 * @param maxBytes The most the body may hold.
 * @returns Its text (UTF-8), "" when it has none, or null when it holds more than `maxBytes`:
 *   the rest is not read (the stream is cancelled).
 */
export async function readBodyAtMost(
  response: Response,
  maxBytes: number,
): Promise<string | null> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder().decode(all);
}
