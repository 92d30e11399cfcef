/**
 * The isolate: a pool of Web Workers with no permissions, each running QuickJS, the globals
 * a handler has, and the protocol between the pool and its workers.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { isIsolateGlobal, missingGlobalHint } from "./globals.ts";
export { IsolatePool } from "./pool.ts";
export type {
  CallHooks,
  HostDispatch,
  IsolateCall,
  IsolatePoolOptions,
  IsolateProbe,
} from "./pool.ts";
export {
  CONSOLE_LEVELS,
  HOST_FUNCTIONS,
  MAX_READ_AHEAD_ARGS,
  MAX_READS_AHEAD,
  READ_FUNCTIONS,
  SERVICE_API_SPECIFIER,
} from "./protocol.ts";
export type {
  ConsoleLevel,
  CrossedError,
  HostFunctionName,
  ProbeReport,
  ReadAhead,
} from "./protocol.ts";
