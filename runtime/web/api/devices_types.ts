/**
 * The shapes of the devices routes (`runtime/web/api/devices.ts`), for the
 * browser app to import type-only. A device's name, description, notice and
 * an attempt's error are text: show them as text, never as HTML. No shape
 * here holds a credential.
 *
 * @module
 */
import type { Account, Consent, DeviceView, ResetResult, TaskAttempt } from "../../applets/mod.ts";

export type {
  Account,
  Consent,
  Coverage,
  DeviceLamp,
  DeviceNotice,
  DeviceState,
  DeviceView,
  LastRead,
  TaskAttempt,
  TaskView,
} from "../../applets/mod.ts";

/** `GET /api/devices?project=…`: the devices of the project's installed packages. */
export interface DevicesResponse {
  /** The project's resolved path. */
  project: string;
  /** Each device, in the order its packages are installed. */
  devices: DeviceView[];
}

/** What every `POST /api/devices/:id/<action>` answers: the device as it is now. */
export interface DeviceResponse {
  /** The project's resolved path. */
  project: string;
  /** The device now. */
  device: DeviceView;
}

/** `POST /api/devices/:id/connect`: the account connected (never its credential). */
export interface ConnectResponse extends DeviceResponse {
  /** The account as stored. */
  account: Account;
}

/** `POST /api/devices/:id/reset`. */
export interface ResetResponse extends DeviceResponse {
  /** What the reset removed. */
  reset: ResetResult;
}

/** `POST /api/devices/:id/run`: the attempt, once it ended. */
export interface RunResponse extends DeviceResponse {
  /** The attempt. */
  attempt: TaskAttempt;
}

/** `POST /api/devices/:id/consent`: the consent now (null once revoked). */
export interface ConsentResponse extends DeviceResponse {
  /** The consent; null when revoked. */
  consent: Consent | null;
}
