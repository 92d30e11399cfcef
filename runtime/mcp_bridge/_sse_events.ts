/**
 * Server-sent events, read as the HTML standard's event stream says: lines
 * end in `\n`, `\r\n` or `\r`; `field: value` (one space after the colon
 * dropped), a line starting with `:` is a comment, and an empty line ends an
 * event. Of the fields, MCP uses `event`, `data` (lines joined with `\n`),
 * `id` and `retry`. An event the stream ends inside of is dropped; one longer
 * than a bound ends the stream.
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
  /** The most characters one event may take, its lines and fields together (10 MiB by default). */
  maxEventChars?: number;
}

/** The most characters one event takes by default: as long as a line the bridge reads on stdin. */
export const MAX_EVENT_CHARS = 10 * 1024 * 1024;

/** An event longer than the stream's reader takes: the stream is dropped there. */
export class SseEventTooLongError extends RangeError {
  /** The error's name. */
  override name = "SseEventTooLongError";
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
  const maxChars = options.maxEventChars ?? MAX_EVENT_CHARS;
  /** Characters of the data of the event begun. */
  let dataChars = 0;
  const tooLong = () =>
    new SseEventTooLongError(`an event longer than ${maxChars / 1024 / 1024} MiB`);
  // Decoded chunk by chunk, without a stream pipeline: a character cut between
  // two chunks is kept for the next.
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    let text = decoder.decode(chunk, { stream: true });
    if (text === "") continue;
    if (afterCr && text.startsWith("\n")) text = text.slice(1);
    afterCr = text.endsWith("\r");
    if (!/[\r\n]/.test(text)) {
      // A line that goes on over many chunks is only added to, not split again each time.
      rest += text;
      if (dataChars + rest.length > maxChars) throw tooLong();
      continue;
    }
    const lines = (rest + text).split(/\r\n|\r|\n/);
    rest = lines.pop()!;
    for (const line of lines) {
      if (line === "") {
        if (data.length > 0 || id !== undefined) yield { event, data: data.join("\n"), id };
        event = "";
        data = [];
        dataChars = 0;
        id = undefined;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") {
        data.push(value);
        dataChars += value.length + 1;
      } else if (field === "event") event = value;
      else if (field === "id" && !value.includes("\0")) id = value;
      else if (field === "retry" && /^\d+$/.test(value)) options.onRetry?.(Number(value));
    }
    if (dataChars + rest.length > maxChars) throw tooLong();
  }
}
