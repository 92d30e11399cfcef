/**
 * Where the CLI writes: one line at a time to stdout or stderr. Commands
 * write through it, never to the console, so tests can capture what a
 * person would see.
 *
 * @module
 */

/** Where a command's output goes: answers on `out`, refusals and notices on `err`. */
export interface CliIo {
  /** Writes one line (or several joined by `\n`) to stdout. */
  out: (line: string) => void;
  /** Writes one line (or several joined by `\n`) to stderr. */
  err: (line: string) => void;
}

/** The process's own stdout and stderr. */
export function consoleIo(): CliIo {
  return { out: (line) => console.log(line), err: (line) => console.error(line) };
}
