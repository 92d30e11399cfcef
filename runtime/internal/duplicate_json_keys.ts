/**
 * Keys written twice in one JSON object. `JSON.parse` keeps the last one and
 * says nothing, so a file that reads one way to a person (the first
 * `"permissions"`) means another to the host (the last); a file where this
 * matters is refused instead.
 *
 * @module
 */

/** A line and column in the text, both from 1. */
export interface TextPlace {
  /** The line, from 1. */
  line: number;
  /** The column, from 1. */
  column: number;
}

/** One key written again in an object that already has it. */
export interface DuplicateJsonKey {
  /** The key, decoded (`"\u0069d"` is `id`). */
  key: string;
  /** The path of the object holding it: member names and array indexes from the top. */
  path: (string | number)[];
  /** Where it is written again. */
  at: TextPlace;
  /** Where it is written first. */
  first: TextPlace;
}

interface Frame {
  /** Keys seen so far with their offsets; null for an array. */
  keys: Map<string, number> | null;
  /** The member name or index this value sits under in its parent. */
  segment: string | number | undefined;
  /** The next index, for an array. */
  index: number;
}

/**
 * Finds every key written twice in one object, in one pass over the text.
 *
 * @param text Text that `JSON.parse` accepts (a leading byte-order mark is skipped).
 * @returns Each repeat, in the order of the text; empty when there is none.
 */
export function duplicateJsonKeys(text: string): DuplicateJsonKey[] {
  const found: { key: string; path: (string | number)[]; at: number; first: number }[] = [];
  const stack: Frame[] = [];
  // The member name the next value is written under, once its key and ":" are read.
  let pendingKey: string | undefined;
  let i = text.startsWith("\uFEFF") ? 1 : 0;
  const segmentForValue = (): string | number | undefined => {
    const top = stack[stack.length - 1];
    if (!top) return undefined;
    if (top.keys === null) return top.index;
    return pendingKey;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === "{" || c === "[") {
      stack.push({ keys: c === "{" ? new Map() : null, segment: segmentForValue(), index: 0 });
      pendingKey = undefined;
      i++;
    } else if (c === "}" || c === "]") {
      stack.pop();
      i++;
    } else if (c === ",") {
      const top = stack[stack.length - 1];
      if (top && top.keys === null) top.index++;
      i++;
    } else if (c === '"') {
      const start = i;
      i++;
      let escaped = false;
      while (text[i] !== '"') {
        if (text[i] === "\\") {
          escaped = true;
          i++;
        }
        i++;
      }
      i++;
      const top = stack[stack.length - 1];
      let j = i;
      while (j < text.length && " \t\n\r".includes(text[j])) j++;
      if (top?.keys && text[j] === ":") {
        const raw = text.slice(start + 1, i - 1);
        const key = escaped ? JSON.parse(text.slice(start, i)) as string : raw;
        const first = top.keys.get(key);
        if (first === undefined) top.keys.set(key, start);
        else found.push({ key, path: pathOf(stack), at: start, first });
        pendingKey = key;
        i = j + 1;
      }
    } else i++;
  }
  if (found.length === 0) return [];
  const place = placer(text);
  return found.map((d) => ({ key: d.key, path: d.path, at: place(d.at), first: place(d.first) }));
}

function pathOf(stack: Frame[]): (string | number)[] {
  return stack.slice(1).map((frame) => frame.segment!);
}

/** Turns offsets, asked for in increasing order, into places, reading the text once. */
function placer(text: string): (offset: number) => TextPlace {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") lineStarts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - lineStarts[low] + 1 };
  };
}
