/**
 * Keeps the JSON-RPC lines of an agent's stdout and sets the others aside.
 *
 * Agents print things that are not protocol: a banner, a log line, a stray
 * `console.log`. The SDK's `ndJsonStream` survives such a line, but answers
 * each with a JSON-RPC parse error sent back to the agent, which the agent
 * did not ask for and may log or choke on. Filtering before the SDK reads
 * the stream keeps the conversation to what both sides meant, and keeps the
 * stray lines for a person to read when something goes wrong.
 *
 * @module
 */
import { cutText } from "../internal/cut_text.ts";

/** Options for {@linkcode jsonRpcLines}. */
export interface JsonRpcLinesOptions {
  /** Called with each line that is not a JSON-RPC message, as text (a long line cut). */
  onNoise(line: string): void;
  /** The longest line read as a message, in bytes; a longer one is noise. */
  maxLineBytes: number;
  /** Characters kept of a noise line. */
  maxNoiseChars: number;
}

const NEWLINE = 0x0a;

/**
 * The lines of `input` that are JSON-RPC messages (a JSON object with
 * `"jsonrpc": "2.0"`), each ending in a newline; every other non-blank line
 * goes to `onNoise`. Lines are split on bytes, so a UTF-8 character split
 * across reads stays whole.
 *
 * @param input The agent's stdout.
 * @param options Where noise goes, and the size limits.
 * @returns A stream to hand to the SDK's `ndJsonStream`.
 */
export function jsonRpcLines(
  input: ReadableStream<Uint8Array>,
  options: JsonRpcLinesOptions,
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  let overlong = false;

  const finishLine = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (overlong) {
      options.onNoise(`(a line of more than ${options.maxLineBytes} bytes, left out)`);
    } else if (size > 0) {
      const line = join(parts, size);
      const text = decoder.decode(line).trim();
      if (isJsonRpc(text)) {
        const withNewline = new Uint8Array(line.length + 1);
        withNewline.set(line);
        withNewline[line.length] = NEWLINE;
        controller.enqueue(withNewline);
      } else if (text !== "") {
        options.onNoise(cutText(text, options.maxNoiseChars));
      }
    }
    parts = [];
    size = 0;
    overlong = false;
  };

  const add = (bytes: Uint8Array) => {
    if (overlong || bytes.length === 0) return;
    if (size + bytes.length > options.maxLineBytes) {
      overlong = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(bytes);
    size += bytes.length;
  };

  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let start = 0;
        for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, start)) {
          add(chunk.subarray(start, at));
          finishLine(controller);
          start = at + 1;
        }
        // The chunk's buffer may be reused by the reader; what waits for its newline is copied.
        add(chunk.slice(start));
      },
      flush(controller) {
        finishLine(controller);
      },
    }),
  );
}

/** True for the text of a JSON object that says it is JSON-RPC 2.0. */
function isJsonRpc(text: string): boolean {
  if (!text.startsWith("{")) return false;
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) &&
      value.jsonrpc === "2.0";
  } catch {
    return false;
  }
}

function join(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const whole = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}
