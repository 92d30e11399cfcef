/**
 * The layout of a command list, as `sync help` and each command's usage show
 * it: the synopsis indented by two, what it does from column 25, on the same
 * line when the synopsis leaves room, else on the lines under it.
 *
 * @module
 */
import type { CommandSummary } from "./command.ts";

/** Where "what it does" starts. */
const ABOUT_COLUMN = 25;

/**
 * Lays out command summaries one under another.
 *
 * @param summaries The entries, in the order they are listed.
 * @returns The lines, joined by `\n`, without a trailing newline.
 */
export function formatSummaries(summaries: readonly CommandSummary[]): string {
  const indent = " ".repeat(ABOUT_COLUMN);
  const lines: string[] = [];
  for (const { synopsis, about } of summaries) {
    const [first, ...rest] = about.split("\n");
    const head = `  ${synopsis}`;
    // Two spaces at least between a synopsis and what it does, else it goes under.
    if (head.length + 2 <= ABOUT_COLUMN) lines.push(head.padEnd(ABOUT_COLUMN) + first);
    else lines.push(head, indent + first);
    for (const line of rest) lines.push(indent + line);
  }
  return lines.join("\n");
}
