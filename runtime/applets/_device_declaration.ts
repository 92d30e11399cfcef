/**
 * The device a package's manifest declares, read the way this folder needs
 * it. A local stand-in, in the exact shape of `DeviceDeclaration`
 * (`runtime/packages/manifest.ts`), until the manifest parses `device`
 * itself; then `deviceOf` reads the parsed field and these types are the
 * packages domain's. Private to the applets' folder.
 *
 * @module
 */

/** A mode a device works in. */
export type DeviceMode = "scheduled" | "observation" | "on-demand" | "website";

/** A task's name: `sync` reads the device, `analyze` is reserved. */
export type TaskName = "sync" | "analyze";

/** One declared task: its handler, how often it runs when scheduled, and what it does. */
export interface TaskDeclaration {
  /** A handler the package declares. */
  handler: string;
  /** Like a schedule row's `every` (`15m`, `1h`); required when the device is scheduled. */
  every?: string;
  /** What the task does, 1–300 characters. */
  description: string;
}

/** The device a package declares. */
export interface DeviceDeclaration {
  /** The device's name, such as `Mail`. */
  name: string;
  /** What it reads. */
  description: string;
  /** How it works; `website` stands alone. */
  modes: DeviceMode[];
  /** The account a person connects; absent for a website. */
  account?: { kind: "folder" | "remote"; description: string };
  /** Its tasks; absent for a website. */
  tasks?: Partial<Record<TaskName, TaskDeclaration>>;
  /** The website, for a website device (https). */
  url?: string;
}

/**
 * The device a manifest declares, or null when it declares none.
 *
 * @param manifest A parsed manifest.
 */
export function deviceOf(manifest: unknown): DeviceDeclaration | null {
  const device = (manifest as { device?: DeviceDeclaration } | null)?.device;
  return device ?? null;
}
