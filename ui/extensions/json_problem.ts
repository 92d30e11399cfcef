/**
 * Where a payload a person typed stops being JSON, and why, in the window's
 * words: "Line 3, column 1: a property name in double quotes was expected".
 * The browser's own `JSON.parse` messages differ from one browser to the next
 * and some name no place at all, so the text is read here, by the grammar of
 * JSON, up to its first mistake.
 *
 * @module
 */

/** The first mistake in a text that is meant to be JSON. */
export interface JsonProblem {
  /** Its line, from 1. */
  line: number;
  /** Its column, from 1. */
  column: number;
  /** Where it is in the text, from 0. */
  offset: number;
  /** What was expected there, in words. */
  message: string;
}

/** Thrown inside the reader at the first mistake. */
class Mistake {
  constructor(readonly offset: number, readonly message: string) {}
}

const SPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;
const HEX4 = /^[0-9a-fA-F]{4}$/;
/** Deeper than this, the browser's parser may refuse where this reader would not. */
const MAX_DEPTH = 500;

/**
 * The first mistake in `text` as JSON, or null when it is JSON.
 *
 * @param text What the person typed.
 * @returns Its line and column, its offset, and what was expected there.
 */
export function jsonProblem(text: string): JsonProblem | null {
  let at = 0;
  const what = (): string => at >= text.length ? "the end of the text" : show(text[at]);
  const skip = () => {
    while (at < text.length && SPACE.has(text[at])) at++;
  };
  const expect = (wanted: string, words: string) => {
    if (text[at] !== wanted) throw new Mistake(at, `${words} was expected, not ${what()}`);
    at++;
  };
  const string = () => {
    expect('"', "a double quote");
    while (true) {
      if (at >= text.length) {
        throw new Mistake(at, 'the text ends inside a string; close it with "');
      }
      const char = text[at];
      if (char === '"') {
        at++;
        return;
      }
      if (char === "\n" || char.charCodeAt(0) < 0x20) {
        throw new Mistake(
          at,
          "a string cannot hold a line break or a control character; write \\n",
        );
      }
      if (char === "\\") {
        const next = text[at + 1];
        if (next === "u" && HEX4.test(text.slice(at + 2, at + 6))) at += 6;
        else if (next !== undefined && ESCAPES.has(next)) at += 2;
        else throw new Mistake(at, `${show("\\" + (next ?? ""))} is not an escape JSON knows`);
        continue;
      }
      at++;
    }
  };
  const value = (depth: number) => {
    if (depth > MAX_DEPTH) throw new Mistake(at, `it nests deeper than ${MAX_DEPTH} levels`);
    skip();
    const char = text[at];
    if (char === "{") {
      at++;
      skip();
      if (text[at] === "}") {
        at++;
        return;
      }
      while (true) {
        skip();
        if (text[at] !== '"') {
          throw new Mistake(at, `a property name in double quotes was expected, not ${what()}`);
        }
        string();
        skip();
        expect(":", "a colon after the property name");
        value(depth + 1);
        skip();
        if (text[at] === ",") {
          at++;
          continue;
        }
        expect("}", "a comma or a closing }");
        return;
      }
    }
    if (char === "[") {
      at++;
      skip();
      if (text[at] === "]") {
        at++;
        return;
      }
      while (true) {
        value(depth + 1);
        skip();
        if (text[at] === ",") {
          at++;
          continue;
        }
        expect("]", "a comma or a closing ]");
        return;
      }
    }
    if (char === '"') return string();
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return;
      }
    }
    const number = NUMBER.exec(text.slice(at, at + 400));
    if (number && (char === "-" || (char >= "0" && char <= "9"))) {
      at += number[0].length;
      return;
    }
    throw new Mistake(
      at,
      `a value was expected (an object, a list, a string in double quotes, a number, true, ` +
        `false or null), not ${what()}`,
    );
  };
  try {
    value(0);
    skip();
    if (at < text.length) {
      throw new Mistake(at, `the JSON ends before ${what()}; remove what follows it`);
    }
    return null;
  } catch (thrown) {
    if (!(thrown instanceof Mistake)) throw thrown;
    return { ...placeOf(text, thrown.offset), offset: thrown.offset, message: thrown.message };
  }
}

/** The line and column of an offset, both from 1. */
function placeOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lines = before.split("\n");
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/** One character or a few, quoted for a message. */
function show(chars: string): string {
  return JSON.stringify(chars);
}
