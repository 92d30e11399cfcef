/**
 * The CLI's side of the owner's local API: a command is sent to the serve
 * that owns the installation, which runs it and streams back what it writes;
 * the lines are written here as they come, so the person sees what they
 * would see had the command run here.
 *
 * @module
 */
import { ConflictError, OwnerGoneError } from "../errors.ts";
import type { OwnerNote } from "../projects/mod.ts";
import type { CommandLine, CommandRequest } from "../web/mod.ts";
import type { CliIo } from "./io.ts";

/**
 * Sends a command to the serve the note names and writes what it answers.
 *
 * @param owner The serve's note (its pid and port).
 * @param token The installation's token.
 * @param request The words and the folder they were typed in.
 * @param io Where the command's lines go.
 * @returns The command's exit code; null when nothing answers on the port, so nothing was sent.
 * @throws {OwnerGoneError} when the serve stopped after the command was sent and before it finished.
 * @throws {ConflictError} when what answers on the port is not this installation's serve.
 */
export async function sendToServe(
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
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${owner.port}/api/owner/commands`, {
      method: "POST",
      headers: { "authorization": `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(request),
    });
  } catch (error) {
    // Refused at connect: nothing was sent, so the command may be run elsewhere.
    if (/\(Connect\)|Connection refused/i.test(causeOf(error))) return null;
    throw gone(causeOf(error));
  }
  if (!response.ok || !response.body) {
    const said = await response.text().catch(() => "");
    throw new ConflictError(
      `What answers on 127.0.0.1:${owner.port}, where this installation's serve ` +
        `(pid ${owner.pid}) should be, refused the command (${response.status}: ` +
        `${said.slice(0, 200)}); stop that process, or the serve, and try again`,
    );
  }
  let rest = "";
  try {
    for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
      const lines = (rest + chunk).split("\n");
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
