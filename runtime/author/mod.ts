/**
 * For package authors: `build` bundles a package's sources, `new` scaffolds one, and
 * `check` says everything that can be known about a package before it runs.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { buildPackage } from "./build.ts";
export type { BuildOptions, BuildOutput, BuildResult } from "./build.ts";
export { checkBuiltPackage, checkPackage } from "./check/check.ts";
export { SYNC_CHECKOUT, taskCommand } from "./checkout.ts";
export type { CheckOptions, CheckReport } from "./check/check.ts";
export { formatProblem } from "./check/problem.ts";
export type { CheckProblem } from "./check/problem.ts";
export { serviceParseNote } from "./parse_cost.ts";
export { scaffoldPackage } from "./scaffold.ts";
export type { ScaffoldOptions, ScaffoldResult } from "./scaffold.ts";
export type { SourceMap } from "./source_map.ts";
