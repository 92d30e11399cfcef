/**
 * The `sync` command line: one command per file under `commands/`, looked up by name.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export type { CliIo } from "./io.ts";
export { enterStartFolder } from "./start_folder.ts";
export { runCli } from "./sync.ts";
export type { RunCliOptions } from "./sync.ts";
