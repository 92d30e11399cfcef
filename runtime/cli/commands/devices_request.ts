/**
 * `sync devices` as read from its words: what the declaration
 * (`devices.ts`) hands its implementation (`run_devices.ts`).
 *
 * @module
 */

/** What `sync devices` does. */
export type DevicesAction =
  | "list"
  | "connect"
  | "disconnect"
  | "reset"
  | "pause"
  | "resume"
  | "review"
  | "run"
  | "consent";

/** `sync devices …`, read from its words. */
export interface DevicesRequest {
  /** What to do. */
  action: DevicesAction;
  /** The project folder, resolved from where the person typed. */
  dir: string;
  /** The package id; absent for `list`. */
  id?: string;
  /** `list --json`. */
  json?: boolean;
  /** `connect --folder`, resolved from where the person typed. */
  folder?: string;
  /** `connect --origin`. */
  origin?: string;
  /** `run --task`. */
  task?: string;
  /** `consent --endpoint`, or null for `--revoke`. */
  endpoint?: string | null;
}
