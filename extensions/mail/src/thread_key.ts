/**
 * The record name of a thread whose conversation starts at `rootId`: 16 hex digits of two
 * FNV-1a hashes of it. The same root gives the same key in every run and on every machine, and
 * a Message-ID (which may hold any character) never reaches the key itself.
 */
export function threadKey(rootId: string): string {
  return fnv1a(rootId, 0x811c9dc5) + fnv1a(rootId, 0x01000193 ^ 0x5bd1e995);
}

function fnv1a(text: string, seed: number): string {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
