/**
 * Packages: manifests and their intervals, the package store (folders linked, archives unpacked),
 * approvals per project, and the rule of which artefact serves a project now.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { approvablePermissions, commandLine, processPermission } from "./approvable_permissions.ts";
export { deleteApproval, readApproval, widenedPermissions, writeApproval } from "./approval.ts";
export type { Approval } from "./approval.ts";
export { agentSchemaIssues } from "./agent_schema.ts";
export type { AgentSchemaIssue } from "./agent_schema.ts";
export { describeEvery, parseEvery } from "./every.ts";
export { linearPattern } from "./linear_pattern.ts";
export type { LinearPattern } from "./linear_pattern.ts";
export { approvalsPrefix, packagesChangedKey } from "./keys.ts";
export { declaredHosts, parseManifest, validateManifest } from "./manifest.ts";
export { isPackageId, notAPackageId } from "../internal/package_id.ts";
export { packageFile, readPackageText } from "./package_file.ts";
export { ACCOUNT_KINDS, DEVICE_MODES, TASK_NAMES } from "./manifest.ts";
export type {
  AccountKind,
  AgentTool,
  DeviceAccountDeclaration,
  DeviceDeclaration,
  DeviceMode,
  HostProcess,
  LifecycleMoment,
  Manifest,
  ManifestHandler,
  ManifestHost,
  ScheduleRow,
  TaskDeclaration,
  TaskName,
} from "./manifest.ts";
export { describePermission } from "./permission_text.ts";
export { runNowRefusal } from "./run_refusal.ts";
export { isWidePermission } from "./wide_permission.ts";
export { compareVersions } from "./compare_versions.ts";
export { sweepStaleStaging } from "./staging.ts";
export {
  describeServingState,
  readServingEntries,
  readServingState,
  servingPackage,
} from "./serving.ts";
export type { ServingEntries, ServingOptions, ServingState } from "./serving.ts";
export { ServingReads, ServingSnapshot } from "./serving_reads.ts";
export type { ServingReadOptions } from "./serving_reads.ts";
export {
  deletePackageRef,
  loadPackage,
  publishedKinds,
  readManifestAt,
  readPackageRef,
  readServiceSource,
  setPackageRef,
  storePackage,
  withPackageFiles,
} from "./store.ts";
export type {
  LoadedPackage,
  PackageFilesOptions,
  PackageRef,
  StoredPackage,
  StorePackageOptions,
} from "./store.ts";
export { readableKinds } from "./readable_kinds.ts";
