/**
 * The line a handler's console entry is printed as: `[<id>] <text>`, with
 * `<level>: ` before the text for any level but `log`. The text is the
 * package's, so it is made printable: one entry is one line, and nothing in
 * it can pass for another package's line or act on the terminal.
 *
 * @module
 */
import { printable } from "../internal/printable.ts";
import type { ConsoleLevel } from "../isolate/mod.ts";

/**
 * One console entry of a handler as the line the host prints.
 *
 * @param packageId The package whose handler wrote it.
 * @param level The console method it called.
 * @param text What it wrote, as the isolate formatted it.
 * @returns One line, with the text's controls and overrides escaped.
 */
export function consoleLine(packageId: string, level: ConsoleLevel, text: string): string {
  return `[${packageId}] ${level === "log" ? "" : `${level}: `}${printable(text)}`;
}
