/**
 * Server-sent events, read as the HTML standard's event stream says: lines
 * end in `\n`, `\r\n` or `\r`; `field: value` (one space after the colon
 * dropped), a line starting with `:` is a comment, and an empty line ends an
 * event. Of the fields, MCP uses `event`, `data` (lines joined with `\n`),
 * `id` and `retry`. An event the stream ends inside of is dropped.
 *
 * @module
 */

/** One event of the stream. */
export interface SseEvent {
  /** Its type; empty when the stream gave none (a `message`). */
  event: string;
  /** Its data, its lines joined with `\n`. */
  data: string;
  /** The id it carries, if any. */
  id?: string;
}

/** Options for {@linkcode sseEvents}. */
export interface SseEventsOptions {
  /** Told the reconnection time, in ms, each time the stream sets one (`retry:`). */
  onRetry?: (ms: number) => void;
}

/**
 * The events of a stream of bytes, as they come.
 *
 * @param body The response's body (a `ReadableStream` is one).
 */
export async function* sseEvents(
  body: AsyncIterable<Uint8Array>,
  options: SseEventsOptions = {},
): AsyncGenerator<SseEvent> {
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  let rest = "";
  /** The last chunk ended in `\r`: a `\n` opening the next one ends no further line. */
  let afterCr = false;
  // Decoded chunk by chunk, without a stream pipeline: a character cut between
  // two chunks is kept for the next.
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    let text = decoder.decode(chunk, { stream: true });
    if (text === "") continue;
    if (afterCr && text.startsWith("\n")) text = text.slice(1);
    afterCr = text.endsWith("\r");
    const lines = (rest + text).split(/\r\n|\r|\n/);
    rest = lines.pop()!;
    for (const line of lines) {
      if (line === "") {
        if (data.length > 0 || id !== undefined) yield { event, data: data.join("\n"), id };
        event = "";
        data = [];
        id = undefined;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "event") event = value;
      else if (field === "id" && !value.includes("\0")) id = value;
      else if (field === "retry" && /^\d+$/.test(value)) options.onRetry?.(Number(value));
    }
  }
}
