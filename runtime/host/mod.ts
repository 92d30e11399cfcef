/**
 * The host: one handler call as a transaction (claim, isolate, host functions, commit,
 * receipt), the host functions a handler may call, and the resources a process holds.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export type { CallOptions, CallResult, HandlerCaller } from "./call.ts";
export type { AccountGrant } from "./account_grant.ts";
export { findHostFunction } from "./function_table.ts";
export { netFetch } from "./functions/net_fetch.ts";
export type { NetFetchOptions } from "./functions/net_fetch.ts";
export { resolveHost } from "./functions/resolve_host.ts";
export type { ResolveHost } from "./functions/resolve_host.ts";
export { Host } from "./host.ts";
export { Foreground } from "./foreground.ts";
export type { ForegroundOptions } from "./foreground.ts";
export type { HostOptions } from "./host.ts";
export { hostDispatch } from "./host_dispatch.ts";
export { runHostFunction } from "./host_function.ts";
export type {
  HostFunction,
  HostFunctionContext,
  PerformedWork,
  WorkStateReader,
} from "./host_function.ts";
export {
  countedOutcome,
  FAILING_AFTER,
  forgetHandlerRuns,
  isRefusal,
  readHandlerRuns,
} from "./handler_runs.ts";
export type { HandlerRun } from "./handler_runs.ts";
export { recordCursorSecret } from "./record_cursor_secret.ts";
export { ConsoleKeep, readReceiptConsole, writeReceiptConsole } from "./receipt_console.ts";
export type { KeptConsoleLine, ReceiptConsole } from "./receipt_console.ts";
export {
  findReceipts,
  latestReceipt,
  listReceipts,
  newestReceipts,
  RECEIPTS_KEPT,
  writeReceipt,
} from "./receipts.ts";
export { matchingReceipts } from "./matching_receipts.ts";
export type { MatchingReceipts, MatchingReceiptsOptions } from "./matching_receipts.ts";
export { runningHandlers } from "./running_claim.ts";
export type { RunningHandlersOptions } from "./running_claim.ts";
export type { ListReceiptsOptions, ReceiptRef } from "./receipts.ts";
