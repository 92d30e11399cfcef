/**
 * Supervisor: the long-lived processes Sync starts (agent programs for
 * work, and extensions' processes), each in a process group of its own,
 * with streamed stdin and stdout, a bounded stderr tail, a scrubbed
 * environment, limits, and a record that lets the next start stop what a
 * Sync that died left running.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { Supervisor } from "./supervisor.ts";
export type { SpawnOptions, SupervisorOptions } from "./supervisor.ts";
export { SupervisedProcess } from "./supervised_process.ts";
export type { ProcessExit, SupervisedProcessOptions } from "./supervised_process.ts";
export { sweepOrphans } from "./sweep_orphans.ts";
export type { SweepOrphansOptions, SweptGroup } from "./sweep_orphans.ts";
export { childEnvironment } from "./child_environment.ts";
export { textLines } from "./text_lines.ts";
export { findProgram } from "./find_program.ts";
export type { FindProgramOptions } from "./find_program.ts";
