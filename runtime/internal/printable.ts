/**
 * Text as a terminal may be given it. Much of what Sync prints came from a
 * package — console lines, error messages, a manifest's name — and a terminal
 * acts on some characters instead of showing them: a newline or carriage
 * return starts what looks like another entry (`[other] …`), ESC and C1
 * controls open escape sequences that retitle, clear or recolour it, and
 * bidirectional overrides reorder what follows so it reads otherwise. Data is
 * stored as it was sent; it is escaped only where it is printed, so what is
 * printed says exactly what was sent.
 *
 * An escape is `\n`, `\r`, `\t` or `\uXXXX`: JSON's own, so JSON text stays
 * the same JSON once escaped, and escaping twice changes nothing. A backslash
 * is left as it is, so a message that spells `\n` itself reads like one that
 * held a newline; it cannot start a line.
 *
 * @module
 */

// Controls (C0, DEL, C1), the line and paragraph separators, the
// bidirectional marks, embeddings, overrides and isolates, and a lone half of
// a surrogate pair (which would print as U+FFFD, not as what was sent).
const UNPRINTABLE = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\p{Cs}/gu;

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escape(char: string): string {
  return (Object.hasOwn(NAMED, char) ? NAMED[char] : undefined) ??
    `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * `text` as one printable line: every character a terminal would act on, line
 * breaks and tabs included, written as its escape. For one entry of a log, and
 * for any text a package sent that is printed inside a line.
 *
 * @param text Any text.
 * @returns The text with nothing a terminal acts on, on one line.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escape);
}

/**
 * `text` as printable lines: like {@linkcode printable}, but newlines and tabs
 * stay, for text laid out over several lines (usage, a listing). Text a
 * package sent is made {@linkcode printable} before it is laid out, so its own
 * newlines cannot start a line.
 *
 * @param text Any text.
 * @returns The text with nothing a terminal acts on but line breaks and tabs.
 */
export function printableLines(text: string): string {
  // Line breaks and tabs lay out a multi-line text, and stay.
  return text.replace(UNPRINTABLE, (char) => char === "\n" || char === "\t" ? char : escape(char));
}
