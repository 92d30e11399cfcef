/**
 * How a command ends badly: what it threw becomes one message on stderr and
 * an exit code; bad usage is refused with the command's usage text.
 *
 * @module
 */
import { BuildError, HandlerFailedError, SyncError } from "../errors.ts";
import { exitCodeOf } from "../error_status.ts";
import { printable } from "../internal/printable.ts";
import { RECEIPT_LIMITS } from "../limits.ts";
import type { CliIo } from "./io.ts";

/**
 * Writes what a command threw and answers its exit code: a build problem at
 * a line of the package's source as `file:line:col  message` (the form check
 * prints, where an editor can jump to it); any other domain error, a build
 * problem with no line included, as `sync <command>: <message>` — what
 * happened, in words; the error's class name is for programs (the API's
 * `name` field, a receipt's `error.name`), never in front of the words — with
 * the code `exitCodeOf` gives it; anything else as an unexpected failure
 * with its stack, exit 1.
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
    // package's text: one line, and no longer than a person can read. The
    // host's own messages keep their line breaks; what they quote of a
    // package was made printable where quoted.
    const message = error instanceof HandlerFailedError
      ? handlerText(error.message)
      : error.message;
    io.err(`sync ${command}: ${message}`);
    return exitCodeOf(error);
  }
  io.err(`sync ${command}: unexpected failure: ${(error as Error)?.stack ?? error}`);
  return 1;
}

/** The most characters of a handler's error text the CLI prints, escapes counted. */
export const MAX_PRINTED_HANDLER_ERROR = 2_000;

/**
 * What a handler threw, as printed: made printable, and cut to
 * {@linkcode MAX_PRINTED_HANDLER_ERROR} characters (never inside an escape)
 * with a mark that says how much was left out and how much of it the call's
 * receipt keeps (`RECEIPT_LIMITS.maxErrorMessageChars`).
 */
function handlerText(text: string): string {
  const whole = printable(text);
  if (whole.length <= MAX_PRINTED_HANDLER_ERROR) return whole;
  let shown = "";
  let used = 0;
  for (const char of text) {
    const printed = printable(char);
    if (shown.length + printed.length > MAX_PRINTED_HANDLER_ERROR) break;
    shown += printed;
    used += char.length;
  }
  const kept = RECEIPT_LIMITS.maxErrorMessageChars;
  const receipt = text.length <= kept
    ? "the call's receipt has all of it"
    : `the call's receipt keeps it cut to ${kept.toLocaleString("en-US")}`;
  return `${shown}… [cut: ${(text.length - used).toLocaleString("en-US")} more characters; ` +
    `${receipt}: sync receipts --project <dir> --json]`;
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
