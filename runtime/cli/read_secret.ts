/**
 * Reading a secret (a credential) where a command is typed: from stdin when
 * it is piped or redirected, else at a prompt on the terminal that does not
 * echo what is typed. Never from the command's words, which shell history
 * and `ps` keep.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";

/** Bytes read of a piped secret at most; a credential is far shorter. */
const MOST_BYTES = 64 * 1024;

/**
 * Reads the secret: the first line of stdin when it is not a terminal, else
 * what the person types at `prompt` (on stderr), unechoed.
 *
 * @param prompt What to ask, such as `Credential for https://mail.example: `.
 * @returns The secret, without its line's end.
 * @throws {InvalidInputError} when nothing was given, or the person pressed Ctrl-C.
 */
export async function readSecret(prompt: string): Promise<string> {
  const secret = Deno.stdin.isTerminal() ? await typed(prompt) : await piped();
  if (secret === "") {
    throw new InvalidInputError(
      "No credential was given: type it at the prompt, or pipe it on stdin " +
        "(never as a word of the command)",
    );
  }
  return secret;
}

/** The first line of stdin. */
async function piped(): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = Deno.stdin.readable.getReader();
  try {
    while (size < MOST_BYTES) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
      if (value.includes(10)) break;
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes).split(/\r?\n/)[0];
}

/** What the person types at the prompt, unechoed, until Enter. */
async function typed(prompt: string): Promise<string> {
  const encoder = new TextEncoder();
  await Deno.stderr.write(encoder.encode(prompt));
  Deno.stdin.setRaw(true);
  const bytes: number[] = [];
  const buffer = new Uint8Array(1);
  try {
    for (;;) {
      const read = await Deno.stdin.read(buffer);
      if (read === null) break;
      const byte = buffer[0];
      if (byte === 13 || byte === 10) break;
      if (byte === 3) throw new InvalidInputError("Stopped: no credential was given");
      if (byte === 127 || byte === 8) bytes.pop();
      else bytes.push(byte);
      if (bytes.length > MOST_BYTES) break;
    }
  } finally {
    Deno.stdin.setRaw(false);
    await Deno.stderr.write(encoder.encode("\n"));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
