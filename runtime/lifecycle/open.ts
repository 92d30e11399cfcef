/**
 * Opening a project: what the installation remembers about it is refreshed,
 * it joins the scheduled list if a package there declares a schedule, an
 * `opened` fact is told, and each package's `opened` handler runs.
 *
 * @module
 */
import type { HandlerCaller } from "../host/mod.ts";
import { servingPackage } from "../packages/mod.ts";
import { type LifecycleRun, runLifecycle } from "./moment.ts";
import { openableFolder, type ProjectInfo, rememberProject } from "../projects/mod.ts";
import { rememberIfScheduled } from "../clock/mod.ts";
import type { EventSink } from "../sync_event.ts";

/** What opening a project did. */
export interface OpenResult {
  /** What the installation now remembers of the project. */
  project: ProjectInfo;
  /** The project is on the clock's scheduled list. */
  scheduled: boolean;
  /** The `opened` handlers that ran, in the order of the project's ids. */
  opened: LifecycleRun[];
  /** Packages that could not serve, so their `opened` handler did not run, and why. */
  unavailable: { packageId: string; message: string }[];
}

/** What opening a project needs of the host: the installation, its clock, and calls. */
export interface OpenHost extends HandlerCaller {
  /** The installation's KV. */
  readonly kv: Deno.Kv;
  /** The host's clock, in ms. */
  readonly now: () => number;
  /** Where the opening is told, once remembered; nowhere when absent. */
  readonly events?: EventSink;
}

/**
 * Opens a project for a person. The `opened` handlers run one after another;
 * one that fails is reported in the answer (and on its receipt) and does not
 * stop the others or the opening.
 *
 * @param host What runs the `opened` handlers, and the installation that remembers the project.
 * @param dir The project folder.
 * @throws {NotFoundError} when the folder does not exist.
 * @throws {InvalidInputError} when `.sync/extensions.json` is malformed, or the folder is one
 * no project may be: the filesystem root, the home folder.
 * @throws {StorageError} when this user cannot write in the folder (`openableFolder`).
 */
export async function openProject(
  host: OpenHost,
  dir: string,
): Promise<OpenResult> {
  // One rule for every way in (the app, `sync open`, a command sent to serve).
  const folder = await openableFolder(dir);
  const project = await rememberProject(host.kv, folder, { now: host.now });
  const scheduled = await rememberIfScheduled(host.kv, project.path, { now: host.now });
  // Told now, so a start page shows it while the opened handlers run.
  host.events?.publish({ type: "opened", project: project.path });
  const result: OpenResult = { project, scheduled, opened: [], unavailable: [] };
  const declaredIds = project.extensionIds;
  for (const id of declaredIds) {
    let pkg;
    try {
      pkg = await servingPackage(host.kv, project.path, id, { declaredIds });
    } catch (error) {
      result.unavailable.push({ packageId: id, message: (error as Error).message });
      continue;
    }
    const run = await runLifecycle(host, project.path, pkg, "opened", { declaredIds });
    if (run) result.opened.push(run);
  }
  return result;
}
