/**
 * Lifecycle moments: installing a package into a project, removing it, and opening a
 * project, each running the package's `installed`, `removed` or `opened` handler.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { installPackage } from "./install.ts";
export { approveUpdate } from "./approve.ts";
export type { ApproveHost } from "./approve.ts";
export type { InstallConfirmWords, InstallHost, InstallOptions, InstallResult } from "./install.ts";
export type { Replaced } from "./replacement.ts";
export { removePackage } from "./remove.ts";
export type { RemoveHost, RemoveOptions, RemoveResult } from "./remove.ts";
export { openProject } from "./open.ts";
export type { LifecycleRun } from "./moment.ts";
export type { OpenHost, OpenResult } from "./open.ts";
export { readInstallCard } from "./install_card.ts";
export type {
  CardPackage,
  CardPermission,
  CardProblem,
  CardScheduleRow,
  InstallCard,
  InstallCardHost,
} from "./install_card.ts";
export { installReport } from "./install_report.ts";
