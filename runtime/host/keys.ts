/**
 * Every Deno KV key the host writes in the installation: receipts (by
 * package, in a time-ordered index, and their count, and the console lines
 * kept with them), each handler's run of
 * failures, the claims of running handlers and their rate counts, and the
 * secret record cursors are sealed with. Keys are built here and nowhere else, so their shapes —
 * which data already stored must keep matching — can be read in one place.
 *
 * @module
 */

const RECEIPT = "receipt";
const RECEIPT_BY_TIME = "receipt_by_time";
const RUNNING = "running";
const HANDLER_RUN = "handler_run";

/**
 * Key of a receipt, by package.
 *
 * @param project The project's resolved path.
 * @param packageId The package whose handler was attempted.
 * @param id The receipt's id, which orders by time.
 */
export function receiptKey(project: string, packageId: string, id: string): Deno.KvKey {
  return [RECEIPT, project, packageId, id];
}

/**
 * Prefix of a package's receipts in a project, oldest first.
 *
 * @param project The project's resolved path.
 * @param packageId The package.
 */
export function receiptsPrefix(project: string, packageId: string): Deno.KvKey {
  return [RECEIPT, project, packageId];
}

/**
 * Key of the console lines kept with a receipt.
 *
 * @param project The project's resolved path.
 * @param packageId The package whose handler was attempted.
 * @param id The receipt's id.
 */
export function receiptConsoleKey(project: string, packageId: string, id: string): Deno.KvKey {
  return ["receipt_console", project, packageId, id];
}

/**
 * Key of a receipt in the project's time-ordered index.
 *
 * @param project The project's resolved path.
 * @param id The receipt's id.
 */
export function receiptIndexKey(project: string, id: string): Deno.KvKey {
  return [RECEIPT_BY_TIME, project, id];
}

/**
 * Prefix of a project's time-ordered receipt index, oldest first.
 *
 * @param project The project's resolved path.
 */
export function receiptIndexPrefix(project: string): Deno.KvKey {
  return [RECEIPT_BY_TIME, project];
}

/**
 * Key of the count of a package's receipts in a project.
 *
 * @param project The project's resolved path.
 * @param packageId The package.
 */
export function receiptCountKey(project: string, packageId: string): Deno.KvKey {
  return ["receipt_count", project, packageId];
}

/**
 * Key of the claim on a handler in a project while a call of it runs.
 *
 * @param project The project's resolved path.
 * @param id The package id.
 * @param handler The handler's name.
 */
export function runningClaimKey(project: string, id: string, handler: string): Deno.KvKey {
  return [RUNNING, project, id, handler];
}

/**
 * Prefix of the claims of running handlers: in every project, or of one
 * project, or of one package in one project.
 *
 * @param project The project's resolved path; all projects when absent.
 * @param id The package id; every package of the project when absent (needs `project`).
 */
export function runningClaimsPrefix(project?: string, id?: string): Deno.KvKey {
  if (project === undefined) return [RUNNING];
  return id === undefined ? [RUNNING, project] : [RUNNING, project, id];
}

/** Key of the installation's secret that seals the cursors of handlers' record listings. */
export function recordCursorSecretKey(): Deno.KvKey {
  return ["secret", "record_cursor"];
}

/**
 * Key of the recent calls of a handler in a project, counted against its rate limit.
 *
 * @param project The project's resolved path.
 * @param id The package id.
 * @param handler The handler's name.
 */
export function handlerRateKey(project: string, id: string, handler: string): Deno.KvKey {
  return ["rate", project, id, handler];
}

/**
 * Key of a handler's run of counted failures in a project, since its last
 * success (`handler_runs.ts`).
 *
 * @param project The project's resolved path.
 * @param id The package id.
 * @param handler The handler's name, as its receipts store it.
 */
export function handlerRunKey(project: string, id: string, handler: string): Deno.KvKey {
  return [HANDLER_RUN, project, id, handler];
}

/**
 * Prefix of the runs of failures of a package's handlers in a project.
 *
 * @param project The project's resolved path.
 * @param id The package id.
 */
export function handlerRunsPrefix(project: string, id: string): Deno.KvKey {
  return [HANDLER_RUN, project, id];
}
