/**
 * Cutting text to a size that can be stored, visibly: what was left out is
 * said, never silently dropped.
 *
 * @module
 */

/**
 * `text` when it has at most `maxChars` characters (UTF-16 code units);
 * otherwise its start, ending with a mark that says how much was cut, the
 * whole at most `maxChars` long. A surrogate pair is never split.
 *
 * @param text Any text.
 * @param maxChars The most characters the answer may have; at least 40, so the mark fits.
 * @returns The text, or its start and `… [cut: 95,904 more characters]`.
 */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // The mark's length depends on the count it states; a wide count is assumed, so it always fits.
  const room = maxChars - mark(text.length).length;
  let end = Math.max(0, room);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + mark(text.length - end);
}

function mark(cut: number): string {
  return `… [cut: ${cut.toLocaleString("en-US")} more characters]`;
}
