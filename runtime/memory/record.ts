/**
 * The record: an entry in a project's memory. This module holds the rules a
 * key and a value must satisfy before anything is stored; storage itself is
 * `store.ts`. The shapes a writer gives and a reader gets (`RecordInput`,
 * `RecordSummary`, `RecordQuery`, `RecordPage`) are the extension API's, so
 * that what a handler is told and what the host does are one definition.
 *
 * @module
 */

import { InvalidInputError, PayloadTooLargeError } from "../errors.ts";
import { RECORD_LIMITS } from "../limits.ts";
import type { JsonValue, RecordInput, RecordSummary } from "../extension_api/service.ts";

/** A whole record: its summary and its text body. */
export interface MemoryRecord extends RecordSummary {
  /** The text body; `""` when the record has none. */
  content: string;
}

/** Records per page when a query names no limit. */
export const DEFAULT_LIST_LIMIT = 50;

/** What a kind looks like: a package id, a dot, and a type name (`issues.issue`). */
export const KIND_PATTERN = /^[a-z][a-z0-9-]*(\.[a-zA-Z][a-zA-Z0-9_-]*)+$/;

// C0, DEL and C1 controls: invisible in every listing and a way to make two
// keys look alike.
const CONTROL_CHARACTER = /\p{Cc}/u;

const encoder = new TextEncoder();

/** UTF-8 length of `text`. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function show(key: unknown): string {
  if (typeof key !== "string") return String(key);
  const shown = JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);
  return shown;
}

/**
 * Checks a record key and answers its kind. Refuses, naming the key, a key
 * that is not a string, has no `/`, has a malformed kind, an empty name,
 * control characters, broken UTF-16, or more than `RECORD_LIMITS.maxKeyChars`
 * characters.
 */
export function parseRecordKey(key: unknown): { kind: string; name: string } {
  if (typeof key !== "string") {
    throw new InvalidInputError(`Record key must be a string, got ${typeof key}.`);
  }
  const problem = keyProblem(key);
  if (problem) throw new InvalidInputError(`Invalid record key ${show(key)}: ${problem}.`);
  const slash = key.indexOf("/");
  return { kind: key.slice(0, slash), name: key.slice(slash + 1) };
}

function keyProblem(key: string): string | null {
  const length = characters(key);
  if (length > RECORD_LIMITS.maxKeyChars) {
    return `${length} characters, at most ${RECORD_LIMITS.maxKeyChars} allowed`;
  }
  // Lone surrogates would be stored as U+FFFD and collide with other keys.
  if (!key.isWellFormed()) return "it contains an unpaired surrogate";
  if (CONTROL_CHARACTER.test(key)) return "it contains a control character";
  const slash = key.indexOf("/");
  if (slash < 0) return 'it must be "kind/name", and has no "/"';
  const kind = key.slice(0, slash);
  if (!KIND_PATTERN.test(kind)) {
    return `kind ${show(kind)} must look like "package.type" (${KIND_PATTERN.source})`;
  }
  if (slash === key.length - 1) return "the name after the kind is empty";
  return null;
}

/** Checks a kind named in a query. */
export function assertKind(kind: unknown): string {
  // A kind is the part of a key before "/" and a name of one character follows.
  const most = RECORD_LIMITS.maxKeyChars - 2;
  if (typeof kind === "string" && characters(kind) > most) {
    throw new InvalidInputError(
      `Invalid kind ${show(kind)}: ${characters(kind)} characters, at most ${most} allowed.`,
    );
  }
  if (typeof kind !== "string" || !KIND_PATTERN.test(kind)) {
    throw new InvalidInputError(
      `Invalid kind ${show(kind)}: it must look like "package.type" (${KIND_PATTERN.source}).`,
    );
  }
  return kind;
}

/** Checks a title for record `key`; answers it unchanged. */
export function checkTitle(key: string, title: unknown): string {
  if (typeof title !== "string") {
    throw new InvalidInputError(
      `Record ${show(key)}: field "title" must be a string, got ${describe(title)}.`,
    );
  }
  refuseUnpairedSurrogate(key, "title", title);
  const length = characters(title);
  if (length > RECORD_LIMITS.maxTitleChars) {
    throw new PayloadTooLargeError(
      `Record ${show(key)}: field "title" has ${length} characters, ` +
        `at most ${RECORD_LIMITS.maxTitleChars} allowed.`,
    );
  }
  return title;
}

/**
 * Checks `fields` for record `key` and answers a JSON copy of it, so later
 * changes to the caller's object cannot reach what is stored.
 */
export function checkFields(key: string, fields: unknown): { [name: string]: JsonValue } {
  if (!isPlainObject(fields)) {
    throw new InvalidInputError(
      `Record ${show(key)}: field "fields" must be a JSON object, got ${describe(fields)}.`,
    );
  }
  let json: string;
  try {
    json = JSON.stringify(fields);
  } catch (error) {
    throw new InvalidInputError(
      `Record ${show(key)}: field "fields" is not JSON: ${(error as Error).message}.`,
    );
  }
  const bytes = utf8Bytes(json);
  if (bytes > RECORD_LIMITS.maxFieldsBytes) {
    throw new PayloadTooLargeError(
      `Record ${show(key)}: field "fields" is ${bytes} bytes as JSON, ` +
        `at most ${RECORD_LIMITS.maxFieldsBytes} allowed.`,
    );
  }
  const copy = JSON.parse(json);
  const where = unpairedSurrogateIn(copy);
  if (where !== null) {
    throw new InvalidInputError(
      `Record ${show(key)}: field "fields" contains an unpaired surrogate in ${where}; ` +
        UNPAIRED_WHY,
    );
  }
  return copy;
}

/** Checks content for record `key`; answers it unchanged. */
export function checkContent(key: string, content: unknown): string {
  if (typeof content !== "string") {
    throw new InvalidInputError(
      `Record ${show(key)}: field "content" must be a string, got ${describe(content)}.`,
    );
  }
  refuseUnpairedSurrogate(key, "content", content);
  // Cheap bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (content.length * 3 > RECORD_LIMITS.maxContentBytes) {
    const bytes = utf8Bytes(content);
    if (bytes > RECORD_LIMITS.maxContentBytes) {
      throw new PayloadTooLargeError(
        `Record ${show(key)}: field "content" is ${bytes} bytes, ` +
          `at most ${RECORD_LIMITS.maxContentBytes} allowed.`,
      );
    }
  }
  return content;
}

// Stored text is UTF-8, which has no form for half a surrogate pair: it would
// come back as U+FFFD, so it is refused, as it is in a key.
const UNPAIRED_WHY = "text is stored as UTF-8, which cannot hold half a pair.";

function refuseUnpairedSurrogate(key: string, field: string, text: string): void {
  if (text.isWellFormed()) return;
  let at = 0;
  for (const char of text) {
    if (char.length === 1 && char >= "\uD800" && char <= "\uDFFF") break;
    at++;
  }
  throw new InvalidInputError(
    `Record ${show(key)}: field ${show(field)} contains an unpaired surrogate ` +
      `at character ${at}; ${UNPAIRED_WHY}`,
  );
}

const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Where in a JSON value the first string with an unpaired surrogate is, as a
 * path from `fields` (a name as well as a value); null when there is none.
 * Walked with a list rather than recursion: 32 KiB of JSON nests deep.
 */
function unpairedSurrogateIn(value: unknown): string | null {
  const pending: [unknown, string][] = [[value, "fields"]];
  while (pending.length > 0) {
    const [item, path] = pending.pop()!;
    if (typeof item === "string") {
      if (!item.isWellFormed()) return path;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i], `${path}[${i}]`]);
    } else if (item !== null && typeof item === "object") {
      const entries = Object.entries(item).map(([name, inner]): [unknown, string, string] => [
        inner,
        NAME.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`,
        name,
      ]);
      const badName = entries.find(([, , name]) => !name.isWellFormed());
      if (badName) return `the name of ${badName[1]}`;
      for (let i = entries.length - 1; i >= 0; i--) pending.push([entries[i][0], entries[i][1]]);
    }
  }
  return null;
}

const INPUT_FIELDS = new Set(["key", "title", "fields", "content", "revision"]);

/**
 * Checks a writer's input: the key, each value given, and that nothing else
 * was given (a misspelt `body` would otherwise be dropped without a word).
 */
export function checkRecordInput(input: unknown): RecordInput {
  if (!isPlainObject(input)) {
    throw new InvalidInputError(`A record write must be an object, got ${describe(input)}.`);
  }
  const key = input.key;
  parseRecordKey(key);
  const checked: RecordInput = { key: key as string };
  for (const name of Object.keys(input)) {
    if (!INPUT_FIELDS.has(name)) {
      throw new InvalidInputError(
        `Record ${show(key)}: unknown field ${show(name)}; ` +
          `a write takes key, title, fields, content and revision.`,
      );
    }
  }
  if (input.title !== undefined) checked.title = checkTitle(checked.key, input.title);
  if (input.fields !== undefined) checked.fields = checkFields(checked.key, input.fields);
  if (input.content !== undefined) checked.content = checkContent(checked.key, input.content);
  if (input.revision !== undefined) {
    const revision = input.revision;
    if (typeof revision !== "number" || !Number.isSafeInteger(revision) || revision < 0) {
      throw new InvalidInputError(
        `Record ${show(key)}: field "revision" must be a whole number ≥ 0, ` +
          `got ${describe(revision)}.`,
      );
    }
    checked.revision = revision;
  }
  return checked;
}

/**
 * Orders keys the way Deno KV orders string key parts (by UTF-8 bytes, which is
 * code point order). JavaScript's `<` compares UTF-16 units and disagrees for
 * characters above U+FFFF, which would misplace staged records in a listing.
 */
export function compareRecordKeys(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  while (true) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const difference = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
}

function isPlainObject(value: unknown): value is { [name: string]: unknown } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
