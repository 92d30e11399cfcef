/**
 * Time-ordered identifiers: keys that sort by when they were made.
 *
 * @module
 */

let last = "";
let counter = 0;

/**
 * Random bytes drawn a few kilobytes at a time: an id is made for every
 * handler call, and asking the system for six bytes at a time costs more
 * than the rest of making it.
 */
const RANDOM_BATCH = 6 * 1024;
let random = new Uint8Array(0);
let taken = 0;

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** The hex of the next six random bytes. */
function randomTail(): string {
  if (taken + 6 > random.length) {
    random = crypto.getRandomValues(new Uint8Array(RANDOM_BATCH));
    taken = 0;
  }
  let tail = "";
  for (let i = taken; i < taken + 6; i++) tail += HEX[random[i]];
  taken += 6;
  return tail;
}

/** A new id that sorts after every id this process made before (for the same or later `now`). */
export function newId(now: number): string {
  const time = Math.max(0, Math.floor(now)).toString(36).padStart(10, "0");
  counter = time === last ? counter + 1 : 0;
  last = time;
  return `${time}-${counter.toString(36).padStart(4, "0")}-${randomTail()}`;
}
