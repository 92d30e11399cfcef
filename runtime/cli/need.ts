/**
 * The words and flags a command cannot do without: a missing one is bad
 * usage (`WordsError`): refused with the command's usage, exit 2.
 *
 * @module
 */
import { projectPath } from "../projects/mod.ts";
import { WordsError } from "./parse_words.ts";

/**
 * Answers a word or flag a command needs.
 *
 * @param value The word or flag, absent when not given.
 * @param message What the command needs, for the person.
 * @throws {WordsError} when it was not given (or is empty).
 */
export function need(value: string | undefined, message: string): string {
  if (!value) throw new WordsError(message);
  return value;
}

/**
 * Answers the `--project <dir>` a command needs, read as every project path
 * is (`projectPath`), a relative one resolved from the folder the person
 * typed the command in (the command may run in a serve, which is elsewhere).
 *
 * @param project The flag's value, absent when not given.
 * @param cwd The folder the person typed the command in.
 * @throws {WordsError} when it was not given.
 */
export function needProject(project: string | undefined, cwd: string): string {
  const given = need(project, "--project <dir> is required");
  return projectPath(given, { name: "--project", relativeTo: cwd });
}
