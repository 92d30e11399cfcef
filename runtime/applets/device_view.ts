/**
 * What a person sees of a device: its state and lamp, its account (never
 * the credential), the consent, the notice that asks them to act, its last
 * read and its tasks with their newest attempts.
 *
 * The lamp follows the state: disconnected → dark, ready → steady,
 * processing → breathing, paused → paused, failed → red. Only a notice
 * makes a device red; a failure the runner retries by itself leaves the
 * lamp as it was.
 *
 * @module
 */
import { APPLET_LIMITS } from "../limits.ts";
import { type PublicAccount, readAccount } from "./account.ts";
import { type Consent, readConsent } from "./consent.ts";
import { type DeviceNotice, type LastRead, readDeviceRecord } from "./device_record.ts";
import { listAttempts, readTaskRecord, type TaskAttempt } from "./task_record.ts";
import type { DeviceDeclaration, DeviceMode } from "./_device_declaration.ts";

/** Where a device stands. */
export type DeviceState = "disconnected" | "ready" | "processing" | "paused" | "failed";

/** The lamp a device shows. */
export type DeviceLamp = "dark" | "steady" | "breathing" | "paused" | "red";

/** One task as a person sees it. */
export interface TaskView {
  /** The task's name, such as `sync`. */
  name: string;
  /** What it does. */
  description: string;
  /** How often it runs when scheduled; null when it is not. */
  every: string | null;
  /** When it runs next, in ms; null when nothing is planned. */
  nextRunAt: number | null;
  /** A run's outcome is unknown: it waits for a person to review it. */
  parkedUntilReview: boolean;
  /** Its newest attempts, newest first. */
  attempts: TaskAttempt[];
}

/** A device as a person sees it. */
export interface DeviceView {
  /** The package id: the device's identity in its project. */
  id: string;
  /** The device's name. */
  name: string;
  /** What it reads. */
  description: string;
  /** How it works. */
  modes: DeviceMode[];
  /** Where it stands. */
  state: DeviceState;
  /** Its lamp. */
  lamp: DeviceLamp;
  /** The kind of account it reads, and what it is; null for a website. */
  accepts: { kind: "folder" | "remote"; description: string } | null;
  /** The account connected, without its credential; null when none is. */
  account: PublicAccount | null;
  /** The consent to process its content; null when none was given. */
  consent: Consent | null;
  /** What a person must do; null when nothing. */
  notice: DeviceNotice | null;
  /** What its last complete read covered. */
  lastRead: LastRead | null;
  /** Its tasks. */
  tasks: TaskView[];
  /** The website, for a website device. */
  url?: string;
}

/** Options for {@linkcode deviceView}. */
export interface DeviceViewOptions {
  /** The device the package declares. */
  device: DeviceDeclaration;
  /** A step of its runs is running now. */
  processing: boolean;
}

/**
 * A device as a person sees it.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param options The device declared, and whether it is processing now.
 */
export async function deviceView(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  options: DeviceViewOptions,
): Promise<DeviceView> {
  const { device } = options;
  // Every read at once: a person's page waits for one round of them, not one after another.
  const declared = Object.entries(device.tasks ?? {}).flatMap(([name, task]) =>
    task ? [{ name, task }] : []
  );
  const [account, consent, record, ...read] = await Promise.all([
    readAccount(kv, project, pkg),
    readConsent(kv, project, pkg),
    readDeviceRecord(kv, project, pkg),
    ...declared.map(({ name }) =>
      Promise.all([
        readTaskRecord(kv, project, pkg, name),
        listAttempts(kv, project, pkg, name, APPLET_LIMITS.attemptsShown),
      ])
    ),
  ]);
  const tasks: TaskView[] = declared.map(({ name, task }, i) => {
    const [stored, attempts] = read[i] as [
      Awaited<ReturnType<typeof readTaskRecord>>,
      TaskAttempt[],
    ];
    return {
      name,
      description: task.description,
      every: device.modes.includes("scheduled") ? task.every ?? null : null,
      nextRunAt: stored?.nextRunAt ?? null,
      parkedUntilReview: stored?.parkedUntilReview ?? false,
      attempts,
    };
  });
  const website = device.modes.includes("website");
  const state: DeviceState = record.paused
    ? "paused"
    : website
    ? "ready"
    : account === null
    ? "disconnected"
    : record.notice !== null
    ? "failed"
    : options.processing
    ? "processing"
    : "ready";
  const view: DeviceView = {
    id: pkg,
    name: device.name,
    description: device.description,
    modes: [...device.modes],
    state,
    lamp: LAMPS.get(state)!,
    accepts: device.account ? { ...device.account } : null,
    account,
    consent,
    notice: state === "failed" ? record.notice : null,
    lastRead: record.lastRead,
    tasks,
  };
  if (device.url !== undefined) view.url = device.url;
  return view;
}

/** The lamp of each state. */
const LAMPS: ReadonlyMap<DeviceState, DeviceLamp> = new Map([
  ["disconnected", "dark"],
  ["ready", "steady"],
  ["processing", "breathing"],
  ["paused", "paused"],
  ["failed", "red"],
]);
