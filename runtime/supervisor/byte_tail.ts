/**
 * The last bytes of a stream, kept within a bound.
 *
 * @module
 */

/**
 * Keeps the last `limit` bytes added to it, however many are added: what a
 * failing program wrote last is what says why it failed.
 */
export class ByteTail {
  #limit: number;
  #chunks: Uint8Array[] = [];
  #size = 0;
  #dropped = 0;

  /**
   * An empty tail.
   *
   * @param limit Bytes kept at most.
   */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Bytes added and no longer kept. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Adds bytes at the end, letting go of the oldest beyond the limit.
   *
   * @param bytes What the stream gave next.
   */
  add(bytes: Uint8Array): void {
    if (bytes.length >= this.#limit) {
      this.#dropped += this.#size + bytes.length - this.#limit;
      this.#chunks = [bytes.slice(bytes.length - this.#limit)];
      this.#size = this.#limit;
      return;
    }
    this.#chunks.push(bytes.slice());
    this.#size += bytes.length;
    while (this.#size > this.#limit) {
      const first = this.#chunks[0];
      const excess = this.#size - this.#limit;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#size -= first.length;
        this.#dropped += first.length;
      } else {
        this.#chunks[0] = first.slice(excess);
        this.#size -= excess;
        this.#dropped += excess;
      }
    }
  }

  /** The bytes kept, oldest first. */
  bytes(): Uint8Array {
    const all = new Uint8Array(this.#size);
    let at = 0;
    for (const chunk of this.#chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return all;
  }

  /**
   * The bytes kept as text. A character cut by the bound at the start is
   * left out rather than shown broken, and when bytes were let go, a first
   * line says how many.
   */
  text(): string {
    let bytes = this.bytes();
    let skipped = 0;
    // UTF-8 continuation bytes (10xxxxxx) at the start belong to a character cut off.
    while (skipped < bytes.length && skipped < 3 && (bytes[skipped] & 0xc0) === 0x80) skipped++;
    bytes = bytes.subarray(skipped);
    const text = new TextDecoder().decode(bytes);
    const before = this.#dropped + skipped;
    return before > 0 ? `[${before} earlier bytes not kept]\n${text}` : text;
  }
}
