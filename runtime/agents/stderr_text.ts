/**
 * An agent's stderr as text a person reads: terminal escapes and other
 * control characters removed (codex colours its log: `ESC[2m…ESC[31mERROR`),
 * a line rewritten with carriage returns taken as it ended. What a failure
 * keeps ({@linkcode keptStderr}) also leaves out npm's own lines of the
 * requests it makes (`npm http fetch …`), which Sync asks npm for
 * (`npm_fetch.ts`) to see a download: they are news while the agent starts,
 * never the reason it failed.
 *
 * @module
 */
import { npmFetchLine } from "./npm_fetch.ts";

/** Terminal escapes: CSI (`ESC[…m`), OSC (`ESC]…BEL`), and two-character ones (`ESC=`). */
// deno-lint-ignore no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b[@-_]/g;
/** Control characters left once escapes are gone, except the line end and the tab. */
// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * Text with terminal escapes removed, each line as it ended after carriage
 * returns rewrote it, and other control characters dropped; line ends kept.
 *
 * @param raw What the agent wrote.
 * @returns The same as plain text.
 */
export function plainText(raw: string): string {
  return raw
    .replace(ESCAPES, "")
    .split("\n")
    .map((line) => {
      const cut = line.replace(/\r+$/, "");
      return cut.slice(cut.lastIndexOf("\r") + 1);
    })
    .join("\n")
    .replace(CONTROLS, "");
}

/**
 * The end of an agent's stderr as a failure keeps it: plain text
 * ({@linkcode plainText}) without npm's lines of its requests.
 *
 * @param raw The end of what the agent wrote on stderr.
 * @returns The lines a person reads, in order.
 */
export function keptStderr(raw: string): string {
  return plainText(raw)
    .split("\n")
    .filter((line) => npmFetchLine(line) === null)
    .join("\n");
}

/**
 * The last line of `text` that says anything, trimmed and cut to `max`
 * characters; null when every line is blank.
 *
 * @param text Stderr, as {@linkcode keptStderr} gives it.
 * @param max How many characters at most, the cut mark included.
 */
export function lastLine(text: string, max: number): string | null {
  const line = text.split("\n").map((l) => l.trim()).filter((l) => l !== "").at(-1);
  if (line === undefined) return null;
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
