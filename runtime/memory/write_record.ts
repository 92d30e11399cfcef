/**
 * A person's write to project memory, from the CLI or the UI: one record,
 * outside any handler call, committed at once. It goes through
 * `MemoryTransaction` like a handler's writes, so both keep the same rules.
 *
 * @module
 */

import type { RecordInput, WriteResult } from "../extension_api/service.ts";
import { MemoryTransaction } from "./transaction.ts";

/** Options of {@linkcode writeRecord}. */
export interface WriteRecordOptions {
  /** Writer recorded as `updatedBy`; defaults to `person`. */
  by?: string;
  /** Clock for `updatedAt`. */
  now?: () => Date;
}

/**
 * Writes one record outside any handler call: a one-write transaction,
 * committed at once.
 *
 * @param kv The project's memory.
 * @param input The record's key and the values to write.
 * @returns The key and the record's new revision.
 * @throws {InvalidInputError} for a malformed key or value.
 * @throws {PayloadTooLargeError} past a record's limits.
 * @throws {ConflictError} when `input.revision` is not the current one, or
 *   another writer changed the record first.
 */
export async function writeRecord(
  kv: Deno.Kv,
  input: RecordInput,
  options: WriteRecordOptions = {},
): Promise<WriteResult> {
  const transaction = new MemoryTransaction(kv, { by: options.by, now: options.now });
  const written = await transaction.write(input);
  await transaction.commit();
  return written;
}
