/**
 * Strict UTF-8 for names read from archives.
 *
 * @module
 */

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as UTF-8, or null when they are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}
