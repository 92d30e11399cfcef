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
import { type OwnerNote, postToOwner } from "../projects/mod.ts";
import type { CommandLine, CommandRequest } from "../web/mod.ts";
import type { CliIo } from "./io.ts";

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
 * @throws {ConflictError} when what answers on the socket refuses the command.
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
  const answer = await postToOwner(home, {
    path: "/api/owner/commands",
    token,
    body: JSON.stringify(request),
  }).catch((error) => {
    // The socket found not to be this person's: nothing was sent.
    if (error instanceof UnsafeFileError) throw error;
    throw gone(causeOf(error));
  });
  // Nothing answers on the socket: nothing was sent, so the command may be run elsewhere.
  if (!answer) return null;
  try {
    if (answer.status < 200 || answer.status > 299) {
      const said = await textOf(answer.body).catch(() => "");
      throw new ConflictError(
        `The sync serve that owns this installation (pid ${owner.pid}) refused the command ` +
          `(${answer.status}: ${said.slice(0, 200)}); stop it and try again`,
      );
    }
    return await readLines(answer.body, io, gone);
  } finally {
    answer.close();
  }
}

/** Writes the answer's lines as they come; answers the exit code its last line says. */
async function readLines(
  body: AsyncIterable<Uint8Array>,
  io: CliIo,
  gone: (why: string) => OwnerGoneError,
): Promise<number> {
  const decoder = new TextDecoder();
  let rest = "";
  try {
    for await (const chunk of body) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) {
        const exit = writeLine(JSON.parse(line) as CommandLine, io);
        if (exit !== undefined) return exit;
      }
    }
  } catch (error) {
    throw gone(causeOf(error));
  }
  throw gone("its answer ended early");
}

/** The whole of a body, as text. */
async function textOf(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Writes one line of the answer; answers the exit code when it is the last. */
function writeLine(line: CommandLine, io: CliIo): number | undefined {
  if ("exit" in line) return line.exit;
  if ("out" in line) io.out(line.out);
  else io.err(line.err);
}

/** The words of an error and of what caused it. */
function causeOf(error: unknown): string {
  const cause = (error as Error)?.cause as Error | undefined;
  return [(error as Error)?.message, cause?.message].filter(Boolean).join(": ");
}
