/**
 * Where a field of a JSON document is written: turns a manifest field path
 * such as `schedule[0].handler` into the line and column of that field in the
 * file's text, so a problem can be reported as `manifest.json:12:7`.
 *
 * @module
 */

/** A line and column, both from 1. */
export interface JsonPlace {
  /** The line, from 1. */
  line: number;
  /** The column, from 1. */
  column: number;
}

/** One step of a field path: an object member or an array index. */
export type JsonPathSegment = string | number;

/**
 * Splits a field path as the manifest validator writes it
 * (`handlers["issues.poll"].agent.input`, `schedule[0].every`) into segments.
 *
 * @example
 * ```ts
 * parseFieldPath('handlers["a.b"].agent'); // ["handlers", "a.b", "agent"]
 * ```
 */
export function parseFieldPath(path: string): JsonPathSegment[] {
  const segments: JsonPathSegment[] = [];
  const pattern = /(?:^|\.)([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < path.length && (match = pattern.exec(path)) !== null) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3]) as string);
  }
  return segments;
}

/** A parsed JSON value with the offset of the key naming it (or of the value itself). */
interface Located {
  /** Offset of the member's key, or of an array element's value. */
  at: number;
  members?: Map<string, Located>;
  items?: Located[];
}

/**
 * Places of fields in one JSON text, read once: the text is parsed and its
 * lines indexed when this is made, and each {@linkcode JsonPlaces.of} costs
 * the path's length and a search over the lines, so placing one problem per
 * declared handler stays linear in the manifest.
 */
export class JsonPlaces {
  readonly #root: Located | undefined;
  readonly #lineStarts: number[] = [0];

  /**
   * Reads the text once.
   *
   * @param text The JSON text; text that is not JSON places everything at line 1.
   */
  constructor(text: string) {
    try {
      this.#root = new Reader(text).document();
    } catch {
      this.#root = undefined;
    }
    for (let i = 0; i < text.length; i++) if (text[i] === "\n") this.#lineStarts.push(i + 1);
  }

  /**
   * The place of the deepest part of `path` that exists: the key of the
   * member the path names, or the key of its nearest parent when the member
   * itself is missing (a required field that is absent is reported where it
   * belongs).
   */
  of(path: JsonPathSegment[]): JsonPlace {
    if (!this.#root) return { line: 1, column: 1 };
    let node: Located = this.#root;
    for (const segment of path) {
      const next: Located | undefined = typeof segment === "number"
        ? node.items?.[segment]
        : node.members?.get(segment);
      if (!next) break;
      node = next;
    }
    return this.#placeOf(node.at);
  }

  #placeOf(offset: number): JsonPlace {
    const starts = this.#lineStarts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - starts[low] + 1 };
  }
}

/**
 * The place of the deepest part of `path` that exists in `text` (see
 * {@linkcode JsonPlaces.of}); for one look-up. Text that is not JSON answers line 1.
 *
 * @example
 * ```ts
 * jsonPlace('{\n  "id": "x"\n}', ["id"]); // { line: 2, column: 3 }
 * ```
 */
export function jsonPlace(text: string, path: JsonPathSegment[]): JsonPlace {
  return new JsonPlaces(text).of(path);
}

/** A small JSON reader that keeps offsets; throws on anything that is not JSON. */
class Reader {
  #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
    if (text.startsWith("\uFEFF")) this.#at = 1;
  }

  document(): Located {
    this.#space();
    const start = this.#at;
    const value = this.#value(start);
    this.#space();
    if (this.#at < this.#text.length) throw new SyntaxError("trailing text");
    return value;
  }

  #space(): void {
    while (this.#at < this.#text.length && " \t\n\r".includes(this.#text[this.#at])) this.#at++;
  }

  #value(at: number): Located {
    this.#space();
    const c = this.#text[this.#at];
    if (c === "{") return this.#object(at);
    if (c === "[") return this.#array(at);
    if (c === '"') {
      this.#string();
      return { at };
    }
    const literal = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(
      this.#text.slice(this.#at, this.#at + 400),
    );
    if (!literal) throw new SyntaxError("not a value");
    this.#at += literal[0].length;
    return { at };
  }

  #object(at: number): Located {
    const members = new Map<string, Located>();
    this.#at++;
    this.#space();
    if (this.#text[this.#at] === "}") {
      this.#at++;
      return { at, members };
    }
    for (;;) {
      this.#space();
      const keyAt = this.#at;
      const key = this.#string();
      this.#space();
      if (this.#text[this.#at] !== ":") throw new SyntaxError("expected :");
      this.#at++;
      const value = this.#value(keyAt);
      if (!members.has(key)) members.set(key, { ...value, at: keyAt });
      this.#space();
      const c = this.#text[this.#at++];
      if (c === "}") return { at, members };
      if (c !== ",") throw new SyntaxError("expected , or }");
    }
  }

  #array(at: number): Located {
    const items: Located[] = [];
    this.#at++;
    this.#space();
    if (this.#text[this.#at] === "]") {
      this.#at++;
      return { at, items };
    }
    for (;;) {
      this.#space();
      items.push(this.#value(this.#at));
      this.#space();
      const c = this.#text[this.#at++];
      if (c === "]") return { at, items };
      if (c !== ",") throw new SyntaxError("expected , or ]");
    }
  }

  #string(): string {
    if (this.#text[this.#at] !== '"') throw new SyntaxError("expected a string");
    const start = this.#at;
    this.#at++;
    while (this.#at < this.#text.length) {
      const c = this.#text[this.#at];
      if (c === "\\") this.#at += 2;
      else if (c === '"') {
        this.#at++;
        return JSON.parse(this.#text.slice(start, this.#at)) as string;
      } else this.#at++;
    }
    throw new SyntaxError("unterminated string");
  }
}
