/**
 * The words and flags a command cannot do without: a missing one is bad
 * usage (`InvalidInputError`, exit 2), said in the command's own words.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";

/**
 * Answers a word or flag a command needs.
 *
 * @param value The word or flag, absent when not given.
 * @param message What the command needs, for the person.
 * @throws {InvalidInputError} when it was not given (or is empty).
 */
export function need(value: string | undefined, message: string): string {
  if (!value) throw new InvalidInputError(message);
  return value;
}

/**
 * Answers the `--project <dir>` a command needs.
 *
 * @param project The flag's value, absent when not given.
 * @throws {InvalidInputError} when it was not given.
 */
export function needProject(project: string | undefined): string {
  return need(project, "--project <dir> is required");
}
