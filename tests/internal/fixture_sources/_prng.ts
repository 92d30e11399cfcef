/**
 * A seeded pseudo-random source (mulberry32), so a fixture written twice from
 * the same seed has the same bytes; the fixtures never read the clock or
 * `Math.random`.
 *
 * @module
 */

/** Draws numbers from one seed, in order. */
export class Prng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** `count` lowercase hex digits. */
  hex(count: number): string {
    let out = "";
    for (let i = 0; i < count; i++) out += Math.floor(this.next() * 16).toString(16);
    return out;
  }
}
