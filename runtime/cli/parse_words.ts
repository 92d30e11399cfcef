/**
 * Reads the words of a command line against the flags a command takes, and
 * says in our own words what is wrong with them: they are read leniently, as
 * `node:util`'s `parseArgs` reads them (`arg_tokens.ts`), and the tokens are
 * checked here, so that no message of its own (with its quoting, and its
 * refusal of `--limit -1`) reaches a person.
 *
 * @module
 */
import type { ParseArgsOptionsConfig } from "node:util";
import { argTokens } from "./arg_tokens.ts";
import type { FlagValues } from "./command.ts";

/** The words read: each flag's value, and the words that are not flags. */
export interface ParsedWords {
  /** Each flag given: a string, true, or a list for a flag that may repeat. */
  values: FlagValues<ParseArgsOptionsConfig>;
  /** The words that are not flags or their values, in order. */
  positionals: string[];
}

/** What was wrong with the words, in a sentence that can follow `sync <command>: `. */
export class WordsError extends Error {
  /** `"WordsError"`. */
  override name = "WordsError";
}

/**
 * Reads `args` with `options`. A flag's value may start with a dash when it
 * is a number (`--limit -1`), so the command's own check says what is wrong
 * with it; any other value that starts with a dash is taken for a flag
 * forgotten its value, unless written `--flag=-value`.
 *
 * @param args The words, such as `["x", "--project", "p"]`.
 * @param options The flags that may appear.
 * @param taker Who takes the flags, for the message: a command's name, or
 *   undefined when the flags are every command's.
 * @returns The flags' values and the other words.
 * @throws {WordsError} for a flag not in `options`, a flag that needs a
 *   value given none (or one that looks like a flag), or a switch given a value.
 */
export function parseWords(
  args: string[],
  options: ParseArgsOptionsConfig,
  taker: string | undefined,
): ParsedWords {
  const { values, positionals, tokens } = argTokens(args, options);
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const flag = token.rawName;
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (!option) {
      throw new WordsError(
        `unknown option ${flag}: ${taker === undefined ? "no command" : taker} ` +
          `${taker === undefined ? "takes" : "does not take"} it`,
      );
    }
    if (option.type === "boolean") {
      if (token.value !== undefined) {
        throw new WordsError(`${flag} takes no value: write ${flag} alone, not ${flag}=…`);
      }
      continue;
    }
    if (token.value === undefined) {
      throw new WordsError(`${flag} needs a value: ${flag} <value>`);
    }
    if (!token.inlineValue && token.value.startsWith("-") && !/^-\d/.test(token.value)) {
      throw new WordsError(
        `${flag} needs a value, and ${JSON.stringify(token.value)} looks like a flag; ` +
          `write ${flag}=${token.value} for a value that starts with "-"`,
      );
    }
  }
  // Checked above: each flag is one of `options`, of its type, so the values are its `FlagValues`.
  return { values: values as FlagValues<ParseArgsOptionsConfig>, positionals };
}
