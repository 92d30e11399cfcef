/**
 * MCP's stdio transport, the server's side: one JSON-RPC message a line on
 * stdin and on stdout, each line ending in `\n` (a `\r` before it is
 * dropped), no newline inside a message.
 *
 * A line that is not JSON, or is JSON but no JSON-RPC message, is reported
 * and skipped, and reading goes on; a line longer than
 * {@linkcode MAX_LINE_BYTES} ends reading, as the SDK's transport does (the
 * bridge still answers what it read before it).
 * Text after the last newline when stdin ends is no message.
 *
 * @module
 */
import { type JsonRpcMessage, readJsonRpc } from "./_json_rpc.ts";

/** The longest line read, in bytes, as the SDK's stdio transport allows. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Options for {@linkcode StdioLines}. */
export interface StdioLinesOptions {
  /** Each message read, in order. */
  onmessage: (message: JsonRpcMessage) => void;
  /** A line that could not be read (it is skipped), or stdin failing. */
  onerror: (error: Error) => void;
  /** Stdin ended. */
  onend: () => void;
  /** A line was too long to read: reading stopped, and nothing more comes to `onmessage`. */
  onclose: () => void;
  /** Where lines are read (the process's stdin by default). */
  input?: ReadableStream<Uint8Array>;
  /** Where lines are written (the process's stdout by default). */
  output?: WritableStream<Uint8Array>;
}

/**
 * The process's stdin, read directly: a web stream over it (`Deno.stdin.readable`)
 * would cost a bridge that starts for every MCP client more to set up than
 * the reading itself.
 */
async function* stdinChunks(): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const read = await Deno.stdin.read(buffer);
    if (read === null) return;
    yield buffer.slice(0, read);
  }
}

/** Writes every byte to the process's stdout, directly (see {@linkcode stdinChunks}). */
async function writeStdout(bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.byteLength;) at += await Deno.stdout.write(bytes.subarray(at));
}

/** Reads messages from stdin and writes messages to stdout, a line each. */
export class StdioLines {
  #options: StdioLinesOptions;
  /** Reads the next chunk. */
  #next: (() => Promise<{ value?: Uint8Array; done?: boolean }>) | null = null;
  /** Stops reading. */
  #cancel: () => void = () => {};
  #writer: WritableStreamDefaultWriter<Uint8Array> | null;
  #encoder = new TextEncoder();
  #decoder = new TextDecoder();
  /** The bytes of a line begun and not yet ended. */
  #partial: Uint8Array[] = [];
  #partialBytes = 0;
  #paused = false;
  #resume: (() => void) | null = null;
  #closed = false;
  /** The last write, which every earlier one precedes. */
  #written: Promise<void> = Promise.resolve();

  /** Takes hold of stdout; nothing is read until {@linkcode StdioLines.start}. */
  constructor(options: StdioLinesOptions) {
    this.#options = options;
    this.#writer = options.output?.getWriter() ?? null;
  }

  /** Starts reading; messages come to `onmessage` until stdin ends. */
  start(): void {
    const { input } = this.#options;
    if (input) {
      const reader = input.getReader();
      this.#next = () => reader.read();
      this.#cancel = () => void reader.cancel().catch(() => {});
    } else {
      // A read of the process's stdin under way cannot be called off; the process ends over it.
      const chunks = stdinChunks();
      this.#next = () => chunks.next();
    }
    void this.#read(this.#next);
  }

  /**
   * Stops reading after the lines already read: what the client writes
   * meanwhile waits in the pipe.
   */
  pause(): void {
    this.#paused = true;
  }

  /** Reads again. */
  resume(): void {
    this.#paused = false;
    this.#resume?.();
    this.#resume = null;
  }

  /**
   * Writes one message as a line; settles once it is handed to stdout, in
   * the order written.
   *
   * @throws when stdout is closed (the client is gone).
   */
  send(message: JsonRpcMessage): Promise<void> {
    const line = this.#encoder.encode(JSON.stringify(message) + "\n");
    const writer = this.#writer;
    // Written one after another, as a stream's writer would: lines never interleave.
    this.#written = writer
      ? writer.write(line)
      : this.#written.catch(() => {}).then(() => writeStdout(line));
    return this.#written;
  }

  /**
   * Stops reading and lets go of stdin and stdout (neither is closed), once
   * what was written has reached stdout: the process may exit right after.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.resume();
    this.#cancel();
    await this.#written.catch(() => {});
    this.#writer?.releaseLock();
  }

  async #read(next: () => Promise<{ value?: Uint8Array; done?: boolean }>): Promise<void> {
    try {
      while (!this.#closed) {
        if (this.#paused) await new Promise<void>((resolve) => this.#resume = resolve);
        if (this.#closed) return;
        const { value, done } = await next();
        if (done || value === undefined) break;
        if (!this.#take(value)) return;
      }
    } catch (error) {
      if (this.#closed) return;
      this.#options.onerror(error instanceof Error ? error : new Error(String(error)));
    }
    if (!this.#closed) this.#options.onend();
  }

  /** Reads the lines a chunk ends; false when a line is too long to read. */
  #take(chunk: Uint8Array): boolean {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.#partial.push(chunk.subarray(start, end));
      this.#partialBytes += end - start;
      start = end + 1;
      if (this.#partialBytes > MAX_LINE_BYTES) return this.#tooLong();
      this.#line(this.#joined());
    }
    if (start < chunk.length) {
      this.#partial.push(chunk.subarray(start));
      this.#partialBytes += chunk.length - start;
    }
    return this.#partialBytes <= MAX_LINE_BYTES || this.#tooLong();
  }

  #tooLong(): false {
    this.#partial = [];
    this.#partialBytes = 0;
    this.#options.onerror(
      new RangeError(`a line is longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB; reading stopped`),
    );
    this.#options.onclose();
    return false;
  }

  /** The line gathered so far, taken out. */
  #joined(): Uint8Array {
    const parts = this.#partial;
    this.#partial = [];
    const bytes = this.#partialBytes;
    this.#partialBytes = 0;
    if (parts.length === 1) return parts[0];
    const line = new Uint8Array(bytes);
    let at = 0;
    for (const part of parts) {
      line.set(part, at);
      at += part.length;
    }
    return line;
  }

  #line(bytes: Uint8Array): void {
    let message: JsonRpcMessage;
    try {
      message = readJsonRpc(this.#decoder.decode(bytes).replace(/\r$/, ""));
    } catch (error) {
      this.#options.onerror(error as Error);
      return;
    }
    this.#options.onmessage(message);
  }
}
