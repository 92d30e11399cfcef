/**
 * How deep a JSON text nests, measured before it is parsed: `JSON.parse`
 * of a body nested a million levels deep holds the event loop for most of
 * a second, and no route takes anything near that deep.
 *
 * @module
 */

/**
 * Whether `text` nests arrays and objects deeper than `most` levels,
 * counting brackets outside strings. It does not check that the text is
 * JSON; `JSON.parse` does that after.
 *
 * @param text The body as it arrived.
 * @param most The deepest nesting allowed.
 * @returns true when some point of the text is nested deeper than `most`.
 * @internal
 */
export function nestedDeeperThan(text: string, most: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > most) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}
