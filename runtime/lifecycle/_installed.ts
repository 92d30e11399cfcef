/**
 * The last steps of an install or of an approval that finishes one: the
 * project is remembered (and put on the clock's list when a package there
 * has a schedule), and whoever watches is told the version now serves.
 *
 * @module
 */
import { rememberIfScheduled } from "../clock/mod.ts";
import { rememberProject } from "../projects/mod.ts";
import type { EventSink } from "../sync_event.ts";

/** What announcing needs of the host: the installation's KV, its clock and its bus. */
export interface AnnounceHost {
  /** The installation's KV. */
  readonly kv: Deno.Kv;
  /** The host's clock, in ms. */
  readonly now: () => number;
  /** Where the fact is told; nobody is told when absent. */
  readonly events?: EventSink;
}

/**
 * Remembers the project and tells that `id@version` now serves it.
 *
 * @param host The installation, its clock and its bus.
 * @param project The project's resolved folder.
 * @param id The package id.
 * @param version The version that serves now.
 */
export async function announceInstalled(
  host: AnnounceHost,
  project: string,
  id: string,
  version: string,
): Promise<void> {
  await rememberProject(host.kv, project, { now: host.now });
  await rememberIfScheduled(host.kv, project, { now: host.now });
  host.events?.publish({
    type: "installed",
    project,
    packageId: id,
    version,
    waitingForApproval: false,
  });
}
