/**
 * The CLI's side of the owner's local API: a command is sent to the serve
 * that owns the installation, which runs it and streams back what it writes;
 * the lines are written here as they come, so the person sees what they
 * would see had the command run here. It is sent over the owner's socket in
 * the installation folder, which only this person can reach, never to the
 * app's port: a port a killed serve left may be anybody's.
 *
 * @module
 */
import { ConflictError, OwnerGoneError, UnsafeFileError } from "../errors.ts";
import { OwnerAnswerError, type OwnerNote, postToOwner } from "../projects/mod.ts";
import type { CommandLine, CommandRequest } from "../web/mod.ts";
import type { CliIo } from "./io.ts";

/** The longest line of a command's output read, in bytes. */
export const MAX_COMMAND_LINE_BYTES = 16 * 1024 * 1024;

/** What the serve answered that is not a command's output, and why. */
class NotOutputError extends Error {
  override name = "NotOutputError";
}

/**
 * Sends a command to the serve that owns the installation, over its socket,
 * and writes what it answers. Call it only while the owner's lock is held
 * and its note says the serve answers on its socket.
 *
 * @param home The installation folder, which holds the socket.
 * @param owner The serve's note (its pid).
 * @param token The installation's token.
 * @param request The words and the folder they were typed in.
 * @param io Where the command's lines go.
 * @returns The command's exit code; null when nothing answers on the socket, so nothing was sent.
 * @throws {OwnerGoneError} when the serve stopped after the command was sent and before it finished.
 * @throws {OwnerGoneError} when the serve sends no answer in time: what it did is unknown.
 * @throws {ConflictError} when what answers on the socket refuses the command, or answers
 *   something that is not a command's output.
 * @throws {UnsafeFileError} when the folder or the socket may not be this person's.
 */
export async function sendToServe(
  home: string,
  owner: OwnerNote,
  token: string,
  request: CommandRequest,
  io: CliIo,
): Promise<number | null> {
  const gone = (why: string) =>
    new OwnerGoneError(
      `The sync serve that owns this installation (pid ${owner.pid}) stopped before the ` +
        `command finished (${why}); what it did is unknown: look with sync receipts, ` +
        `sync records or sync list before you run it again`,
    );
  const unreadable = (why: string) =>
    new ConflictError(
      `The sync serve that owns this installation (pid ${owner.pid}) answered something ` +
        `that is not a command's output (${why}); what it did is unknown: stop it, look with ` +
        `sync receipts, sync records or sync list, and try again`,
    );
  const failed = (error: unknown) => {
    if (error instanceof NotOutputError) return unreadable(error.message);
    if (error instanceof OwnerAnswerError && error.silent) {
      return new OwnerGoneError(
        `The sync serve that owns this installation (pid ${owner.pid}) did not answer ` +
          `(${error.message}); what it did is unknown: stop it, look with sync receipts, ` +
          `sync records or sync list, and try again`,
      );
    }
    if (error instanceof OwnerAnswerError) return unreadable(error.message);
    return gone(causeOf(error));
  };
  const answer = await postToOwner(home, {
    path: "/api/owner/commands",
    token,
    body: JSON.stringify(request),
  }).catch((error) => {
    // The socket found not to be this person's: nothing was sent.
    if (error instanceof UnsafeFileError) throw error;
    throw failed(error);
  });
  // Nothing answers on the socket: nothing was sent, so the command may be run elsewhere.
  if (!answer) return null;
  try {
    if (answer.status < 200 || answer.status > 299) {
      const said = await startOf(answer.body, 200).catch(() => "");
      throw new ConflictError(
        `The sync serve that owns this installation (pid ${owner.pid}) refused the command ` +
          `(${answer.status}: ${said.slice(0, 200)}); stop it and try again`,
      );
    }
    return await readLines(answer.body, io).catch((error) => {
      throw failed(error);
    });
  } finally {
    answer.close();
  }
}

/**
 * Writes the answer's lines as they come; answers the exit code its last line
 * says. Throws a {@linkcode NotOutputError} for a line that is none.
 */
async function readLines(body: AsyncIterable<Uint8Array>, io: CliIo): Promise<number> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of body) {
    const text = decoder.decode(chunk, { stream: true });
    // A line that goes on over many chunks is only added to, not split again each time.
    if (!text.includes("\n")) rest += text;
    const lines = text.includes("\n") ? (rest + text).split("\n") : [];
    if (lines.length > 0) rest = lines.pop()!;
    for (const line of lines) {
      const exit = writeLine(commandLineOf(line), io);
      if (exit !== undefined) return exit;
    }
    if (rest.length > MAX_COMMAND_LINE_BYTES) {
      throw new NotOutputError(`a line longer than ${MAX_COMMAND_LINE_BYTES / 1024 / 1024} MiB`);
    }
  }
  throw new Error("its answer ended early");
}

/** One line of a command's output, as the serve writes it. */
function commandLineOf(text: string): CommandLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new NotOutputError(`a line that is not JSON: ${text.slice(0, 200)}`);
  }
  const line = value as Record<string, unknown>;
  const keys = typeof value === "object" && value !== null && !Array.isArray(value)
    ? Object.keys(line)
    : [];
  if (keys.length === 1) {
    const [key] = keys;
    if (
      key === "exit" && Number.isInteger(line.exit) && 0 <= (line.exit as number) &&
      (line.exit as number) <= 255
    ) return { exit: line.exit as number };
    if (key === "out" && typeof line.out === "string") return { out: line.out };
    if (key === "err" && typeof line.err === "string") return { err: line.err };
  }
  throw new NotOutputError(`the line ${text.slice(0, 200)}`);
}

/** The first `max` characters of a body; the rest is not read. */
async function startOf(body: AsyncIterable<Uint8Array>, max: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= max) break;
  }
  return text.slice(0, max);
}

/** Writes one line of the answer; answers the exit code when it is the last. */
function writeLine(line: CommandLine, io: CliIo): number | undefined {
  if (Object.hasOwn(line, "exit")) return (line as { exit: number }).exit;
  if (Object.hasOwn(line, "out")) io.out((line as { out: string }).out);
  else io.err((line as { err: string }).err);
}

/** The words of an error and of what caused it. */
function causeOf(error: unknown): string {
  const cause = (error as Error)?.cause as Error | undefined;
  return [(error as Error)?.message, cause?.message].filter(Boolean).join(": ");
}
