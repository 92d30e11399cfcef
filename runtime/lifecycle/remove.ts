/**
 * Removing a package from a project: its `removed` handler runs first, then
 * the id leaves the project's `.sync/extensions.json`, the project's approval
 * and its handlers' runs of failures are deleted, the clock forgets the
 * package there, and so do the applets its device (account, credential,
 * consent, tasks and attempts).
 *
 * @module
 */
import { deleteApproval, readApproval, servingPackage, writeApproval } from "../packages/mod.ts";
import { LifecycleFailedError, NotFoundError } from "../errors.ts";
import { printable } from "../internal/printable.ts";
import { bumpGeneration } from "../memory/mod.ts";
import { forgetHandlerRuns, type HandlerCaller } from "../host/mod.ts";
import { forgetSchedule, switchOn } from "../clock/mod.ts";
import { forgetDevice } from "../applets/mod.ts";
import { type LifecycleRun, runLifecycle } from "./moment.ts";
import {
  readDeclaredIds,
  rememberProject,
  resolveProjectDir,
  writeDeclaredIds,
} from "../projects/mod.ts";
import type { EventSink } from "../sync_event.ts";

/** What removing a package needs of the host: the installation, project memories, and calls. */
export interface RemoveHost extends HandlerCaller {
  /** The installation's KV. */
  readonly kv: Deno.Kv;
  /** The host's clock, in ms. */
  readonly now: () => number;
  /** The project's memory KV, where the package's generation is bumped. */
  projectMemory(project: string): Promise<Deno.Kv>;
  /** Where installs and removals are told once done; nowhere when absent. */
  readonly events?: EventSink;
}

/** Options for {@linkcode removePackage}. */
export interface RemoveOptions {
  /** Remove even when the `removed` handler fails. */
  force?: boolean;
}

/** What a removal did. */
export interface RemoveResult {
  /** The project's resolved folder. */
  project: string;
  /** The `removed` handler, when the package names one and it could run. */
  removed: LifecycleRun | null;
  /** Why the `removed` handler could not run, when the package could not serve. */
  notice?: string;
}

/**
 * Removes a package from a project. Its `removed` handler runs first; if it
 * fails the removal is refused (unless `force`) and nothing changes. Then the
 * id leaves `.sync/extensions.json`, the project's approval and its handlers'
 * runs of failures are deleted and its generation bumped so that a call still
 * running commits nothing. The project's records and its receipts stay. A
 * removal the disk refuses part-way puts the id and its approval back.
 *
 * @param host What runs the `removed` handler and forgets the package's approval.
 * @param id The package id.
 * @param projectDir The project folder.
 * @param options Whether to remove even when the `removed` handler fails.
 * @throws {NotFoundError} when the package is not installed in the project.
 * @throws {LifecycleFailedError} when the `removed` handler failed and `force` is not set.
 */
export async function removePackage(
  host: RemoveHost,
  id: string,
  projectDir: string,
  options: RemoveOptions = {},
): Promise<RemoveResult> {
  const project = await resolveProjectDir(projectDir);
  const ids = await readDeclaredIds(project);
  if (!ids.includes(id)) {
    throw new NotFoundError(`${id} is not installed in ${project}`);
  }
  const result: RemoveResult = { project, removed: null };
  let pkg;
  try {
    pkg = await servingPackage(host.kv, project, id, { declaredIds: ids });
  } catch (error) {
    // Nothing of it can run, so nothing can clean up; removing it is still the person's call.
    result.notice = `${id} could not serve here, so no removed handler ran: ${
      (error as Error).message
    }`;
  }
  if (pkg) {
    result.removed = await runLifecycle(host, project, pkg, "removed", {
      declaredIds: ids,
      payload: { version: pkg.manifest.version },
    });
    const failed = result.removed?.outcome === "failed" ? result.removed : null;
    if (failed && !options.force) {
      throw new LifecycleFailedError(
        `Cannot remove ${id} from ${project}: its removed handler ${failed.handler} failed: ` +
          `${printable(failed.error!.message)}\n` +
          `${id} stays installed. Fix the handler and remove it again, or remove it anyway.`,
        { cause: failed.failure },
      );
    }
  }
  await bumpGeneration(await host.projectMemory(project), id);
  const approval = await readApproval(host.kv, project, id);
  // What this removal wrote, undone in reverse when a later step fails (a
  // full or read-only installation disk), so a refused removal leaves the id
  // declared and approved, as it was. The generation bumped stays: it only
  // fences off calls that were running.
  const undo: (() => Promise<void>)[] = [];
  try {
    await writeDeclaredIds(project, ids.filter((other) => other !== id));
    undo.push(async () => {
      await writeDeclaredIds(project, ids);
      // Remembered with it again, for the clock to tick with.
      await rememberProject(host.kv, project, { now: host.now });
    });
    await deleteApproval(host.kv, project, id);
    if (approval) undo.push(() => writeApproval(host.kv, project, approval));
    // Its receipts stay, to be read; its handlers' runs of failures go with it.
    await forgetHandlerRuns(host.kv, project, id);
    // Remembered without it first, so a clock that looked before cannot start it any more;
    // then, installed again, it starts afresh: on, never run, not needing review.
    await rememberProject(host.kv, project, { now: host.now });
    await forgetSchedule(host.kv, project, id);
    await switchOn(host.kv, project, id);
    // Its device's account, credential, consent, tasks and attempts go; what it read stays.
    await forgetDevice(host.kv, await host.projectMemory(project), project, id);
  } catch (error) {
    // An undo the disk refuses too leaves the rest to undo still.
    for (const step of undo.reverse()) await step().catch(() => {});
    throw error;
  }
  host.events?.publish({ type: "removed", project, packageId: id });
  return result;
}
