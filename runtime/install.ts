/**
 * Installing a package into a project and removing it: the package goes into
 * the store, a person's approval of its permissions is recorded for the
 * project in the installation, and the id is added to the project's
 * `.sync/extensions.json`.
 *
 * @module
 */
import {
  type Approval,
  deleteApproval,
  readApproval,
  widenedPermissions,
  writeApproval,
} from "./approval.ts";
import { ApprovalRequiredError, NotFoundError } from "./errors.ts";
import { bumpGeneration } from "./generation.ts";
import type { Host } from "./host.ts";
import {
  type LoadedPackage,
  readPackageRef,
  setPackageRef,
  storePackage,
} from "./package_store.ts";
import { describePermission } from "./permission_text.ts";
import { rememberIfScheduled } from "./scheduled_projects.ts";
import {
  openProject,
  type ProjectInfo,
  readDeclaredIds,
  resolveProjectDir,
  writeDeclaredIds,
} from "./project.ts";

/** Options for {@linkcode installPackage}. */
export interface InstallOptions {
  /** A person approved the permissions shown. */
  approve?: boolean;
}

/** What an install did. */
export interface InstallResult {
  package: LoadedPackage;
  project: string;
  /** Permissions newly approved by this install (empty when nothing new was asked). */
  approved: string[];
}

/**
 * Installs a package from a folder or an archive into a project.
 *
 * Without `approve`, an install whose permissions this project has not
 * approved is refused with every permission spelled out; a newer version that
 * widens them is stored and made current on this machine, while the project
 * keeps the version it approved until a person approves the new one.
 *
 * @throws {ApprovalRequiredError} when approval is needed and not given.
 * @throws {ManifestError | ArchiveError | NotFoundError} for a bad package or path.
 */
export async function installPackage(
  host: Host,
  source: string,
  projectDir: string,
  options: InstallOptions = {},
): Promise<InstallResult> {
  const project = await resolveProjectDir(projectDir);
  const pkg = await storePackage(source, { home: host.home, now: host.now });
  const { id, version, permissions } = pkg.manifest;
  const previous = await readPackageRef(host.kv, id);
  const approval = await readApproval(host.kv, project, id);
  const widened = widenedPermissions(approval?.permissions ?? [], permissions);
  const needsApproval = !approval || widened.length > 0;

  if (needsApproval && !options.approve) {
    if (approval) {
      // Stored and current on this machine; this project keeps what it approved.
      await setPackageRef(host.kv, pkg.ref);
      if (previous?.dir !== pkg.ref.dir) await fenceOtherProjects(host, id, project);
      throw new ApprovalRequiredError(
        `Cannot update ${id} to ${version} in ${project}: it asks for more than was approved:\n` +
          widened.map((p) => `  ${p} — ${describePermission(p)}`).join("\n") +
          `\n${id}@${approval.version} keeps serving this project until a person approves; ` +
          `run again with --approve`,
      );
    }
    throw new ApprovalRequiredError(
      `Cannot install ${id}@${version} into ${project} without approval. It asks for:\n` +
        (permissions.length
          ? permissions.map((p) => `  ${p} — ${describePermission(p)}`).join("\n")
          : "  nothing (no permissions)") +
        `\nRun again with --approve to approve these for this project.`,
    );
  }

  await setPackageRef(host.kv, pkg.ref);
  if (needsApproval || options.approve) {
    const record: Approval = {
      id,
      version,
      ref: pkg.ref,
      permissions: [...permissions],
      approvedAt: new Date(host.now()).toISOString(),
    };
    await writeApproval(host.kv, project, record);
  }
  // Re-approving or updating fences off calls started under what served before.
  if (needsApproval || options.approve || previous?.dir !== pkg.ref.dir) {
    await bumpGeneration(await host.projectMemory(project), id);
  }
  if (previous?.dir !== pkg.ref.dir) await fenceOtherProjects(host, id, project);
  const ids = await readDeclaredIds(project);
  if (!ids.includes(id)) await writeDeclaredIds(project, [...ids, id]);
  await openProject(host.kv, project, { now: host.now });
  await rememberIfScheduled(host, project);
  return { package: pkg, project, approved: needsApproval ? widened : [] };
}

/**
 * Removes a package from a project: its id leaves `.sync/extensions.json`, the
 * project's approval is deleted and its generation bumped so that a call
 * still running commits nothing. The project's records stay.
 *
 * @throws {NotFoundError} when the package is not installed in the project.
 */
export async function removePackage(host: Host, id: string, projectDir: string): Promise<void> {
  const project = await resolveProjectDir(projectDir);
  const ids = await readDeclaredIds(project);
  if (!ids.includes(id)) {
    throw new NotFoundError(`${id} is not installed in ${project}`);
  }
  await bumpGeneration(await host.projectMemory(project), id);
  await writeDeclaredIds(project, ids.filter((other) => other !== id));
  await deleteApproval(host.kv, project, id);
  await openProject(host.kv, project, { now: host.now });
}

/**
 * The artefact serving `id` is machine-wide, so an update changes what serves
 * in every project that lists it: bump the generation in each remembered one
 * (except `project`, done by the caller) so calls started before commit nothing.
 * A project whose folder is gone is skipped.
 */
async function fenceOtherProjects(host: Host, id: string, project: string): Promise<void> {
  for await (const entry of host.kv.list<ProjectInfo>({ prefix: ["project"] })) {
    const other = entry.value;
    if (other.path === project || !other.extensionIds.includes(id)) continue;
    try {
      await Deno.stat(other.path);
    } catch {
      continue;
    }
    await bumpGeneration(await host.projectMemory(other.path), id);
  }
}
