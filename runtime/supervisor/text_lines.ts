/**
 * Text read line by line.
 *
 * @module
 */

/**
 * The lines of a stream of text, without their `\n` (or `\r\n`). A last
 * line with no newline is answered too. Reading stops, and the stream is
 * let go, when the loop over it stops.
 *
 * @param text Text as it arrives, in chunks of any size.
 */
export async function* textLines(text: ReadableStream<string>): AsyncGenerator<string> {
  let pending = "";
  for await (const chunk of text) {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      yield line.endsWith("\r") ? line.slice(0, -1) : line;
    }
  }
  if (pending.length > 0) yield pending;
}
