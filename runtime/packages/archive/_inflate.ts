/**
 * Deflate data inflated a slice at a time, so a bomb is stopped early.
 *
 * @module
 */

import { ArchiveError } from "../../errors.ts";

/** What is used of fflate's streaming `Inflate`. */
export interface Inflater {
  /** Feeds compressed bytes; `final` on the last push. Output goes to the inflater's callback. */
  push(chunk: Uint8Array, final?: boolean): void;
}

/**
 * Compressed bytes handed to the inflater per push. Deflate expands at most
 * about 1032:1, so one push can produce at most ~4 MiB before the caps are
 * looked at again.
 */
const INFLATE_SLICE = 4 * 1024;

/**
 * Feeds compressed data to an fflate inflater in small slices, so the output
 * callback can stop a bomb after a few MiB. Refusals from the callback pass
 * through; fflate's own errors become refusals through `corrupt`.
 *
 * @param inflater An fflate `Inflate` whose callback takes the output.
 * @param compressed The deflate data.
 * @param corrupt Makes the refusal for data fflate cannot inflate.
 * @throws {ArchiveError} from the callback, or from `corrupt`.
 */
export function inflateSlices(
  inflater: Inflater,
  compressed: Uint8Array,
  corrupt: (message: string) => ArchiveError,
): void {
  try {
    if (compressed.length === 0) inflater.push(new Uint8Array(0), true);
    for (let at = 0; at < compressed.length; at += INFLATE_SLICE) {
      const end = Math.min(at + INFLATE_SLICE, compressed.length);
      inflater.push(compressed.subarray(at, end), end === compressed.length);
    }
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw corrupt(error instanceof Error ? error.message : String(error));
  }
}
