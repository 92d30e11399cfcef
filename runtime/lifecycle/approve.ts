/**
 * Approving an update that waits: a newer version of a package is stored and
 * current on this machine, but asks for more than a project approved, so the
 * version the project approved keeps serving it. A person's approval makes the
 * stored version serve the project, as installing it again with approval
 * would, without reading it from anywhere: an archive's artefact stays the
 * one in the store, and a folder stays linked.
 *
 * @module
 */
import {
  approvablePermissions,
  type Approval,
  readApproval,
  readPackageRef,
  readServingState,
  writeApproval,
} from "../packages/mod.ts";
import { ConflictError, LifecycleFailedError, NotFoundError } from "../errors.ts";
import { bumpGeneration } from "../memory/mod.ts";
import { readDeclaredIds, resolveProjectDir } from "../projects/mod.ts";
import { printable } from "../internal/printable.ts";
import type { InstallHost, InstallResult } from "./install.ts";
import { runLifecycle } from "./moment.ts";
import { announceInstalled } from "./_installed.ts";

/** What approving needs of the host: the installation, what runs `installed`, the bus. */
export type ApproveHost = Pick<
  InstallHost,
  "kv" | "now" | "events" | "projectMemory" | "callHandler"
>;

/**
 * Approves, for a project, the version of a package stored and current on
 * this machine that waits for a person because it widens the permissions the
 * project approved. Its `installed` handler runs first, as an install's does
 * (a failure approves nothing); then the approval is written, the generation
 * bumped so calls started under the old version commit nothing, and an
 * `installed` event published.
 *
 * @param host The installation, what runs the `installed` handler, and the bus.
 * @param projectDir The project folder.
 * @param id The package id.
 * @returns What an install with approval answers: the package, the project, what was approved,
 *   and its `installed` handler's run.
 * @throws {NotFoundError} when the project does not list the package, or it is not on this machine.
 * @throws {ConflictError} when no update of it waits for approval in the project.
 * @throws {LifecycleFailedError} when its `installed` handler fails; nothing is approved.
 */
export async function approveUpdate(
  host: ApproveHost,
  projectDir: string,
  id: string,
): Promise<InstallResult> {
  const project = await resolveProjectDir(projectDir);
  const ids = await readDeclaredIds(project);
  if (!ids.includes(id)) {
    throw new NotFoundError(
      `Cannot approve ${id}: it is not installed in ${project}` +
        (ids.length ? ` (installed: ${ids.join(", ")})` : " (nothing is installed there)"),
    );
  }
  const serving = await readServingState(host.kv, project, id);
  if (serving.state === "not-on-machine") {
    throw new NotFoundError(
      `Cannot approve ${id}: it is listed in ${project} but is not on this machine; ` +
        `install it again from its folder or archive`,
    );
  }
  if (serving.state === "cannot-load") {
    throw new NotFoundError(
      `Cannot approve ${id}: its stored version cannot be read: ${serving.message}`,
    );
  }
  if (serving.state !== "awaits-approval") {
    throw new ConflictError(
      serving.state === "approved"
        ? `Cannot approve ${id} in ${project}: no update waits for approval; ` +
          `${id}@${serving.current.manifest.version} is approved and serves`
        : `Cannot approve ${id} in ${project}: it was never approved here, so nothing is an ` +
          `update; install it with approval: sync install <folder|archive> --approve`,
    );
  }
  const pkg = serving.current;
  const { version } = pkg.manifest;
  const permissions = approvablePermissions(pkg.manifest);
  const ref = await readPackageRef(host.kv, id);
  const before = await readApproval(host.kv, project, id);
  // What waited was read above; the ref is that artefact's unless an install moved it since.
  if (!ref || ref.dir !== pkg.ref.dir || !before) {
    throw new ConflictError(
      `Cannot approve ${id}@${version} in ${project}: another version was installed meanwhile; ` +
        `read the page again and approve what waits now`,
    );
  }
  const installed = await runLifecycle(host, project, pkg, "installed", {
    declaredIds: ids,
    payload: { version, previousVersion: before.version },
  });
  if (installed?.outcome === "failed") {
    throw new LifecycleFailedError(
      `Cannot approve ${id}@${version} in ${project}: its installed handler ` +
        `${installed.handler} failed: ${printable(installed.error!.message)}\n` +
        `Nothing was approved; ${id}@${serving.serves ?? before.version} keeps serving`,
      { cause: installed.failure },
    );
  }
  const record: Approval = {
    id,
    version,
    ref,
    permissions: [...permissions],
    approvedAt: new Date(host.now()).toISOString(),
  };
  await writeApproval(host.kv, project, record);
  try {
    // Calls started under the version that served until now commit nothing.
    await bumpGeneration(await host.projectMemory(project), id);
    await announceInstalled(host, project, id, version);
  } catch (error) {
    // A refused approval (a full or read-only project disk) approves nothing.
    await writeApproval(host.kv, project, before).catch(() => {});
    throw error;
  }
  return { package: pkg, project, approved: serving.widened, installed };
}
