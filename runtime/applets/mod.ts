/**
 * Applets: devices, their accounts, consent and tasks, and the task runner
 * that reads them while Sync runs, beside the clock.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { connectAccount, connectedAccount, disconnectAccount, readAccount } from "./account.ts";
export type {
  Account,
  AccountInput,
  ConnectAccountOptions,
  PublicAccount,
  StoredCredential,
} from "./account.ts";
export { grantConsent, readConsent, revokeConsent } from "./consent.ts";
export type { Consent, GrantConsentOptions } from "./consent.ts";
export { coverageOf, describeCoverage } from "./coverage.ts";
export type { Coverage } from "./coverage.ts";
export { readDeviceRecord, updateDeviceRecord } from "./device_record.ts";
export type { DeviceNotice, DeviceRecord, LastRead, NoticeKind } from "./device_record.ts";
export { deviceView } from "./device_view.ts";
export type {
  DeviceLamp,
  DeviceState,
  DeviceView,
  DeviceViewOptions,
  TaskView,
} from "./device_view.ts";
export { forgetDevice } from "./forget_device.ts";
export { pauseDevice, resumeDevice } from "./pause_device.ts";
export { resetDevice } from "./reset_device.ts";
export type { ResetResult } from "./reset_device.ts";
export { systemScheduler } from "./scheduler.ts";
export type { Scheduler } from "./scheduler.ts";
export { listAttempts, readTaskRecord } from "./task_record.ts";
export type { AttemptOutcome, AttemptTrigger, TaskAttempt, TaskRecord } from "./task_record.ts";
export { TaskRunner } from "./task_runner.ts";
export type { RunTaskOptions, TaskRunnerHost, TaskRunnerOptions } from "./task_runner.ts";
export type {
  DeviceDeclaration,
  DeviceMode,
  TaskDeclaration,
  TaskName,
} from "./_device_declaration.ts";
