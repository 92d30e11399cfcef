/**
 * The record name of one occurrence: 16 hex digits of two FNV-1a hashes of its UID and
 * recurrence id. The same occurrence gets the same key in every run, whichever file holds it,
 * and a UID (which may hold any character) never reaches the key itself.
 */
export function eventKey(uid: string, recurrenceId: string | null): string {
  const text = `${uid}\n${recurrenceId ?? ""}`;
  return fnv1a(text, 0x811c9dc5) + fnv1a(text, 0x01000193 ^ 0x5bd1e995);
}

function fnv1a(text: string, seed: number): string {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
