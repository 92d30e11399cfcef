/**
 * Project memory: records in the project's own KV, the transaction a handler call writes
 * through, what a package may read and write, and the generation and account epoch that
 * fence writers.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { MemoryAccess } from "./access.ts";
export { bumpAccountEpoch, readAccountEpoch } from "./account_epoch.ts";
export { bumpGeneration, generationBumpsThrough, readGeneration } from "./generation.ts";
export { removePackageRecords } from "./remove_package_records.ts";
export type { Generation } from "./generation.ts";
export { ProjectMemories } from "./project_memories.ts";
export type { ProjectMemoriesOptions } from "./project_memories.ts";
export {
  getContent,
  getRecord,
  listRecords,
  openProjectMemory,
  projectMemoryPath,
  removeProjectMemory,
} from "./store.ts";
export type { OpenProjectMemoryOptions } from "./store.ts";
export { assertKind, parseRecordKey } from "./record.ts";
export { listRecordKinds, readRecordView, searchRecords } from "./record_view.ts";
export type {
  RecordKindCount,
  RecordKinds,
  RecordSearch,
  RecordSearchPage,
  RecordView,
  SearchRecordsOptions,
} from "./record_view.ts";
export { RECORD_WRITERS_KEPT } from "./store.ts";
export type { RecordWriter } from "./store.ts";
export { newCursorSecret, RecordCursors } from "./record_cursors.ts";
export type { CursorScope } from "./record_cursors.ts";
export { MemoryTransaction } from "./transaction.ts";
export { writeRecord } from "./write_record.ts";
export type { WriteRecordOptions } from "./write_record.ts";
export type {
  CommitResult,
  MemoryTransactionOptions,
  RecordChange,
  TransactionListOptions,
} from "./transaction.ts";
