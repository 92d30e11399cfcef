/**
 * Time-ordered identifiers: keys that sort by when they were made.
 *
 * @module
 */

let last = "";
let counter = 0;

/** A new id that sorts after every id this process made before (for the same or later `now`). */
export function newId(now: number): string {
  const time = Math.max(0, Math.floor(now)).toString(36).padStart(10, "0");
  counter = time === last ? counter + 1 : 0;
  last = time;
  const random = crypto.getRandomValues(new Uint8Array(6));
  const tail = Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${time}-${counter.toString(36).padStart(4, "0")}-${tail}`;
}
