/**
 * How a command ends badly: what it threw becomes one message on stderr and
 * an exit code; bad usage is refused with the command's usage text.
 *
 * @module
 */
import { BuildError, HandlerFailedError, SyncError } from "../errors.ts";
import { exitCodeOf } from "../error_status.ts";
import { printable } from "../internal/printable.ts";
import type { CliIo } from "./io.ts";

/**
 * Writes what a command threw and answers its exit code: a build problem at
 * a line of the package's source as `file:line:col  message` (the form check
 * prints, where an editor can jump to it); any other domain error, a build
 * problem with no line included, as `sync <command>: <ErrorName>: <message>`
 * with the code `exitCodeOf` gives it; anything else as an unexpected
 * failure with its stack, exit 1.
 *
 * @param error What the command threw.
 * @param command The command's name, for the message.
 * @param io Where the message goes (stderr).
 * @returns The exit code.
 */
export function reportFailure(error: unknown, command: string, io: CliIo): number {
  if (error instanceof BuildError && error.line !== undefined) {
    const place = [error.file, error.line, error.column].filter((p) => p !== undefined)
      .join(":");
    io.err(`${place}  ${error.message}`);
    return exitCodeOf(error);
  }
  if (error instanceof SyncError) {
    // A handler's failure says what the handler threw, all of it the
    // package's text: one line. The host's own messages keep their line
    // breaks; what they quote of a package was made printable where quoted.
    const message = error instanceof HandlerFailedError ? printable(error.message) : error.message;
    io.err(`sync ${command}: ${error.name}: ${message}`);
    return exitCodeOf(error);
  }
  io.err(`sync ${command}: unexpected failure: ${(error as Error)?.stack ?? error}`);
  return 1;
}

/**
 * Refuses bad usage (an unknown flag, a missing or extra word): the reason,
 * then the command's usage, on stderr; exit 2.
 *
 * @param command The command's name, for the message.
 * @param usage The command's usage text.
 * @param message What was wrong.
 * @param io Where it goes (stderr).
 * @returns 2, the exit code of bad usage.
 */
export function refuseUsage(command: string, usage: string, message: string, io: CliIo): number {
  io.err(`sync ${command}: ${message}\n\n${usage}`);
  return 2;
}
