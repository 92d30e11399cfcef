/**
 * A JSON Schema `pattern` (an ECMAScript regular expression) compiled for
 * RE2, whose matching takes time linear in the text: a pattern written by a
 * package and a text sent by a caller can never hold the process for long,
 * as `^([a-z]+)+$` against `aaaa…!` does with a backtracking engine.
 *
 * @module
 */
import { RE2JS } from "re2js";
import { InvalidInputError } from "../errors.ts";

/** A compiled pattern: tests a text the way JSON Schema's `pattern` does (anywhere in it). */
export interface LinearPattern {
  /** True when the pattern matches somewhere in `text`. */
  test(text: string): boolean;
}

/**
 * Compiles a JSON Schema pattern for RE2. ECMAScript escapes RE2 spells
 * differently (`\u0041`, `(?<name>…)`) are translated first.
 *
 * @param source The pattern as the schema writes it.
 * @returns The compiled pattern.
 * @throws {InvalidInputError} When RE2 cannot run it: a backreference
 *   (`\1`) or lookaround (`(?=…)`, `(?<!…)`) needs backtracking, which is
 *   what makes a regular expression take exponential time; the message says
 *   which construct.
 * @example
 * ```ts
 * linearPattern("^[a-z]+$").test("abc"); // true
 * linearPattern("(a)\\1"); // throws: invalid escape sequence: `\1`
 * ```
 */
export function linearPattern(source: string): LinearPattern {
  try {
    return RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new InvalidInputError(
      `${why.replace(/^error parsing regexp: /, "")}; Sync runs patterns with RE2, in time ` +
        `linear in the text, which has no backreferences and no lookaround: write the ` +
        `pattern without them`,
    );
  }
}
