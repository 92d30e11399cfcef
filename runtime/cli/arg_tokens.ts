/**
 * The words of a command line read as `node:util`'s lenient `parseArgs`
 * reads them (`strict: false`, `allowPositionals: true`, `tokens: true`),
 * written here so that the CLI's own path needs no `node:` module: the first
 * import of one sets up Deno's Node layer, which costs a short-lived CLI
 * process several megabytes. What is wrong with the words is said by
 * `parse_words.ts`, from the tokens.
 *
 * @module
 */
import type { ParseArgsOptionsConfig } from "node:util";

/** One word, or part of one, as read. */
export type ArgToken =
  /** A flag: `--name`, `--name=value`, `-n`, `-nvalue`, or one of a group `-abc`. */
  | {
    kind: "option";
    /** The flag's long name (a short one's, when the options name it). */
    name: string;
    /** As written: `--name` or `-n`. */
    rawName: string;
    /** Where it stands in the words. */
    index: number;
    /** Its value: inline, or the next word for a string flag; absent when none. */
    value: string | undefined;
    /** True when the value was written `--name=value` or `-nvalue`; absent with no value. */
    inlineValue: boolean | undefined;
  }
  /** A word that is no flag or a flag's value. */
  | { kind: "positional"; index: number; value: string }
  /** `--`: every word after it is positional. */
  | { kind: "option-terminator"; index: number };

/** The words read: each flag's value, the other words, and the tokens they came from. */
export interface ArgsRead {
  /** Each flag given: its value, or true when it has none; a list for a flag marked `multiple`. */
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  /** The words that are not flags or their values, in order. */
  positionals: string[];
  /** Every word as read. */
  tokens: ArgToken[];
}

/**
 * Reads `args` against `options` as `parseArgs({ args, options, strict:
 * false, allowPositionals: true, tokens: true })` does: a flag the options
 * do not name is kept under its own name; a string flag takes the next word
 * as its value whatever it looks like.
 *
 * @param args The words.
 * @param options The flags that may appear: their type, short name and whether they repeat.
 */
export function argTokens(args: readonly string[], options: ParseArgsOptionsConfig): ArgsRead {
  const tokens: ArgToken[] = [];
  const typeOf = (name: string) => Object.hasOwn(options, name) ? options[name].type : undefined;
  const longOf = (short: string) =>
    Object.keys(options).find((name) => options[name].short === short) ?? short;
  const remaining = [...args];
  let index = -1;
  let grouped = 0;
  while (remaining.length > 0) {
    const arg = remaining.shift()!;
    const next = remaining[0];
    if (grouped > 0) grouped--;
    else index++;
    if (arg === "--") {
      tokens.push({ kind: "option-terminator", index });
      for (const rest of remaining) {
        tokens.push({ kind: "positional", index: ++index, value: rest });
      }
      break;
    }
    const short = arg.length >= 2 && arg[0] === "-" && arg[1] !== "-";
    if (short && arg.length === 2) {
      const name = longOf(arg[1]);
      const value = typeOf(name) === "string" && next !== undefined ? remaining.shift() : undefined;
      tokens.push({
        kind: "option",
        name,
        rawName: arg,
        index,
        value,
        inlineValue: value === undefined ? undefined : false,
      });
      if (value !== undefined) index++;
      continue;
    }
    if (short && typeOf(longOf(arg[1])) !== "string") {
      // -abc is -a -b -c; a string flag within takes the rest as its value: -abfFILE.
      const expanded: string[] = [];
      for (let at = 1; at < arg.length; at++) {
        const letter = arg[at];
        if (typeOf(longOf(letter)) !== "string" || at === arg.length - 1) {
          expanded.push(`-${letter}`);
        } else {
          expanded.push(`-${arg.slice(at)}`);
          break;
        }
      }
      remaining.unshift(...expanded);
      grouped = expanded.length;
      continue;
    }
    if (short) {
      tokens.push({
        kind: "option",
        name: longOf(arg[1]),
        rawName: `-${arg[1]}`,
        index,
        value: arg.slice(2),
        inlineValue: true,
      });
      continue;
    }
    if (arg.length > 2 && arg.startsWith("--")) {
      const equals = arg.indexOf("=", 3);
      if (equals === -1) {
        const name = arg.slice(2);
        const value = typeOf(name) === "string" && next !== undefined
          ? remaining.shift()
          : undefined;
        tokens.push({
          kind: "option",
          name,
          rawName: arg,
          index,
          value,
          inlineValue: value === undefined ? undefined : false,
        });
        if (value !== undefined) index++;
      } else {
        const name = arg.slice(2, equals);
        tokens.push({
          kind: "option",
          name,
          rawName: `--${name}`,
          index,
          value: arg.slice(equals + 1),
          inlineValue: true,
        });
      }
      continue;
    }
    tokens.push({ kind: "positional", index, value: arg });
  }
  const values: ArgsRead["values"] = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value);
    if (token.kind !== "option" || token.name === "__proto__") continue;
    const value = token.value ?? true;
    if (Object.hasOwn(options, token.name) && options[token.name].multiple) {
      const list = values[token.name];
      values[token.name] = Array.isArray(list) ? [...list, value] : [value];
    } else values[token.name] = value;
  }
  return { values, positionals, tokens };
}
