/**
 * Test helper: reads a Server-Sent Events stream block by block, the way a
 * browser's EventSource does, so tests wait for events rather than sleep.
 *
 * @module
 */

/** One block of the stream: an event, or a comment. */
export interface SseBlock {
  /** The event's name (`message` when it has none); absent for a comment. */
  event?: string;
  /** The data lines joined by `\n`. */
  data?: string;
  /** The comment's text, for a block that is only a comment. */
  comment?: string;
}

/** Reads blocks off a stream's body. */
export class SseReader {
  #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next block; fails after `ms` or when the stream ends. */
  async next(ms = 30_000): Promise<SseBlock> {
    const until = Date.now() + ms;
    while (true) {
      const end = this.#buffer.indexOf("\n\n");
      if (end >= 0) {
        const text = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        return parse(text);
      }
      const left = until - Date.now();
      if (left <= 0) {
        throw new Error(`no event within ${ms} ms; have ${JSON.stringify(this.#buffer)}`);
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), left);
      });
      const read = await Promise.race([this.#reader.read(), timeout]);
      clearTimeout(timer);
      if (read === "timeout") continue;
      if (read.done) throw new Error(`the stream ended; have ${JSON.stringify(this.#buffer)}`);
      this.#buffer += read.value;
    }
  }

  /** The next event named `name`, passing over others and comments. */
  async event(name: string, ms = 30_000): Promise<unknown> {
    const until = Date.now() + ms;
    while (true) {
      const block = await this.next(Math.max(1, until - Date.now()));
      if (block.event === name) return JSON.parse(block.data ?? "null");
    }
  }

  /** Stops reading; the server sees the page go away. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

function parse(text: string): SseBlock {
  const block: SseBlock = {};
  const data: string[] = [];
  const comments: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith(":")) comments.push(line.slice(1).trim());
    else if (line.startsWith("event: ")) block.event = line.slice(7);
    else if (line.startsWith("data: ")) data.push(line.slice(6));
  }
  if (data.length) {
    block.data = data.join("\n");
    block.event ??= "message";
  }
  if (comments.length && !block.event) block.comment = comments.join("\n");
  return block;
}
