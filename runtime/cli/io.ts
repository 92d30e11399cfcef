/**
 * Where the CLI writes: one line at a time to stdout or stderr. Commands
 * write through it, never to the console, so tests can capture what a
 * person would see. Text a package sent is made `printable` where a command
 * lays it into a line; this is the last guard before the terminal.
 *
 * @module
 */
import { printableLines } from "../internal/printable.ts";

/** Where a command's output goes: answers on `out`, refusals and notices on `err`. */
export interface CliIo {
  /** Writes one line (or several joined by `\n`) to stdout. */
  out: (line: string) => void;
  /** Writes one line (or several joined by `\n`) to stderr. */
  err: (line: string) => void;
}

/**
 * The process's own stdout and stderr. Whatever a command writes reaches the
 * terminal with every control character and bidirectional override escaped
 * but its line breaks and tabs; JSON stays the same JSON.
 */
export function consoleIo(): CliIo {
  return {
    out: (line) => console.log(printableLines(line)),
    err: (line) => console.error(printableLines(line)),
  };
}
