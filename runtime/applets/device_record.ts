/**
 * A device's own state in the installation: whether a person paused it,
 * the notice that asks a person to act (the red lamp), and what its last
 * read covered. Failures that need no person leave it as it was.
 *
 * @module
 */
import { deviceKey } from "./keys.ts";
import type { Coverage } from "./coverage.ts";

/** What a person must do for a device to work again: sign in, allow access, or review a run. */
export type NoticeKind = "sign-in" | "allow-access" | "review-run";

/** The notice over a red device: what happened, and the one action that mends it. */
export interface DeviceNotice {
  /** What a person must do. */
  kind: NoticeKind;
  /** What happened and what to do, in words. */
  message: string;
  /** The action's name in the API and the CLI: `connect` (sign in, allow access) or `review`. */
  action: "connect" | "review";
}

/** What the device's last complete read covered, and when it ended. */
export interface LastRead {
  /** When the read ended, in ms. */
  at: number;
  /** What it covered. */
  coverage: Coverage;
}

/** A device's stored state. */
export interface DeviceRecord {
  /** A person paused it: its content stays, nothing runs. */
  paused: boolean;
  /** Why it is red; null when no person needs to act. */
  notice: DeviceNotice | null;
  /** What its last read covered; null before one ended with coverage. */
  lastRead: LastRead | null;
}

/** A device as it is before anything happened to it. */
const FRESH: DeviceRecord = { paused: false, notice: null, lastRead: null };

/**
 * A device's stored state; a fresh one when nothing was stored.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export async function readDeviceRecord(
  kv: Deno.Kv,
  project: string,
  pkg: string,
): Promise<DeviceRecord> {
  return (await kv.get<DeviceRecord>(deviceKey(project, pkg))).value ?? { ...FRESH };
}

/**
 * Changes a device's stored state, retrying when another writer changed it first.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param change Makes the new state from the one stored.
 * @returns The new state.
 */
export async function updateDeviceRecord(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  change: (record: DeviceRecord) => DeviceRecord,
): Promise<DeviceRecord> {
  const key = deviceKey(project, pkg);
  while (true) {
    const before = await kv.get<DeviceRecord>(key);
    const next = change(before.value ?? { ...FRESH });
    if ((await kv.atomic().check(before).set(key, next).commit()).ok) return next;
  }
}

/** The notice asking a person to allow access to the folder again. */
export function allowAccessNotice(pkg: string, why: string): DeviceNotice {
  return {
    kind: "allow-access",
    message: `${pkg} cannot read its account: ${why}. Connect the folder again (or another one)`,
    action: "connect",
  };
}

/** The notice asking a person to sign in again. */
export function signInNotice(pkg: string, why: string): DeviceNotice {
  return {
    kind: "sign-in",
    message:
      `${pkg}'s account refused its credential: ${why}. Sign in again: connect with a new credential`,
    action: "connect",
  };
}

/** The notice asking a person to review a run that failed. */
export function reviewRunNotice(pkg: string, task: string, why: string): DeviceNotice {
  return {
    kind: "review-run",
    message:
      `${pkg}'s ${task} failed: ${why}. Review the run, then mark it reviewed to let it run again`,
    action: "review",
  };
}
