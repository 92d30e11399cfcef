/**
 * Installing a package into a project: the package goes into the store, a
 * person's approval of its permissions is recorded for the project in the
 * installation, and the id is added to the project's `.sync/extensions.json`.
 *
 * @module
 */
import {
  approvablePermissions,
  type Approval,
  deleteApproval,
  deletePackageRef,
  describePermission,
  isWidePermission,
  type LoadedPackage,
  type PackageRef,
  readApproval,
  readPackageRef,
  readPackageText,
  setPackageRef,
  storePackage,
  widenedPermissions,
  writeApproval,
} from "../packages/mod.ts";
import { dirname, join } from "node:path";
import { ApprovalRequiredError, LifecycleFailedError, PackageCheckError } from "../errors.ts";
import { checkBuiltPackage, checkPackage, formatProblem, taskCommand } from "../author/mod.ts";
import { bumpGeneration, projectMemoryPath, removeProjectMemory } from "../memory/mod.ts";
import type { IsolatePool } from "../isolate/mod.ts";
import { type HandlerLimits, PACKAGE_FILE_LIMITS } from "../limits.ts";
import { announceInstalled } from "./_installed.ts";
import { type LifecycleRun, runLifecycle } from "./moment.ts";
import { findReplaced, placeOf, replacementText } from "./replacement.ts";
import type { RemoveHost } from "./remove.ts";
import {
  openableFolder,
  type ProjectInfo,
  projectsPrefix,
  readDeclaredIds,
  writeDeclaredIds,
} from "../projects/mod.ts";
import { pathExists } from "../internal/path_exists.ts";
import { printable } from "../internal/printable.ts";
import type { InstallProgressEvent } from "../sync_event.ts";

/** What installing a package needs of the host: besides removal's, the store and the isolates. */
export interface InstallHost extends RemoveHost {
  /** The installation folder, whose store archives are unpacked into. */
  readonly home: string;
  /** The isolates check runs a built service module in. */
  readonly pool: IsolatePool;
  /** The limits check runs it under. */
  readonly limits: HandlerLimits;
  /** Closes a project memory this install created, so a failed install can delete it. */
  forgetProject(project: string): Promise<void>;
}

/** Options for {@linkcode installPackage}. */
export interface InstallOptions {
  /** A person approved the permissions shown. */
  approve?: boolean;
  /**
   * A person agreed to replace the package installed under the same id when
   * this one comes from another source or is older (see `replacement.ts`).
   */
  replace?: boolean;
  /**
   * How a person says yes where they asked, for a refusal to name: the
   * command they typed with `--approve` or `--replace` added. The app's
   * request fields by default.
   */
  confirm?: InstallConfirmWords;
}

/** The words a refusal names for saying yes: what to run, or what to send. */
export interface InstallConfirmWords {
  /** How to approve the permissions, such as `sync install ./x --project p --approve`. */
  approve: string;
  /** How to replace the installed package, such as `sync install ./x --project p --replace`. */
  replace: string;
}

const APP_CONFIRM: InstallConfirmWords = {
  approve: `send "approve": true with the install`,
  replace: `send "replace": true with the install`,
};

/** What an install did. */
export interface InstallResult {
  /** The package installed, as stored on this machine. */
  package: LoadedPackage;
  /** The project's resolved folder. */
  project: string;
  /** Permissions newly approved by this install (empty when nothing new was asked). */
  approved: string[];
  /** The `installed` handler, when the package names one (it succeeded, or the install was refused). */
  installed: LifecycleRun | null;
}

/**
 * Installs a package from a folder or an archive into a project.
 *
 * Without `approve`, an install whose permissions this project has not
 * approved is refused with every permission spelled out; a newer version that
 * widens them is stored and made current on this machine, while the project
 * keeps the version it approved until a person approves the new one.
 *
 * @param host What stores, checks and approves the package and runs its `installed` handler.
 * @param source A package folder or archive.
 * @param projectDir The project folder.
 * @param options Whether a person approved the permissions shown.
 * @throws {ApprovalRequiredError} when approval is needed and not given, or when the
 *   package would replace the one installed under its id from another source or at a
 *   newer version, and `replace` is not given.
 * @throws {PackageCheckError} for a package `deno task check` refuses, in its words.
 * @throws {ArchiveError | NotFoundError} for a hostile archive or a bad path.
 * @throws {InvalidInputError} for a folder no project may be (the filesystem root, the home
 * folder).
 * @throws {StorageError} for a folder this user cannot write, or a disk that refuses a write;
 *   nothing of the install is left behind.
 */
export async function installPackage(
  host: InstallHost,
  source: string,
  projectDir: string,
  options: InstallOptions = {},
): Promise<InstallResult> {
  // The folders `openProject` refuses are refused here too, before anything is written.
  const project = await openableFolder(projectDir);
  const syncFolder = join(project, ".sync");
  const hadSyncFolder = await pathExists(syncFolder);
  const memoryFile = projectMemoryPath(project);
  const hadMemory = await pathExists(memoryFile);
  const progress = (stage: InstallProgressEvent["stage"]) =>
    host.events?.publish({ type: "install-progress", project, source, stage });
  progress("unpacking");
  const pkg = await storePackage(source, {
    home: host.home,
    now: host.now,
    // What `deno task check` refuses, install refuses in the same words, before anything
    // is stored: a folder built and checked in place, an archive in its staging folder.
    admit: (dir) => {
      progress("checking");
      return admitChecked(host, source, dir);
    },
  });
  progress("installing");
  const { id, version } = pkg.manifest;
  const permissions = approvablePermissions(pkg.manifest);
  const confirm = options.confirm ?? APP_CONFIRM;
  let refMoved = false;
  // What this install wrote, undone in reverse when a later step fails, so a
  // refused install leaves no approval, ref or declared id behind.
  const undo: (() => Promise<void>)[] = [];
  try {
    // Another package under the same id, or an older one, replaces what serves
    // every project listing it: never without a person's word.
    const replaced = await findReplaced(host.kv, project, {
      id,
      version,
      source: pkg.ref.source,
      folder: pkg.ref.source === "folder" ? pkg.ref.dir : undefined,
    });
    if (replaced && !options.replace) {
      throw new ApprovalRequiredError(
        `Cannot install ${id} ${version} from ${placeOf(pkg.ref)} into ${project} without ` +
          `your word: it ${replacementText(replaced)}.\nTo replace it: ${confirm.replace}`,
      );
    }
    const previous = await readPackageRef(host.kv, id);
    const approval = await readApproval(host.kv, project, id);
    const widened = widenedPermissions(approval?.permissions ?? [], permissions);
    const needsApproval = !approval || widened.length > 0;

    if (needsApproval && !options.approve) {
      if (approval) {
        // Stored and current on this machine; this project keeps what it approved.
        await setPackageRef(host.kv, pkg.ref);
        refMoved = true;
        if (previous?.dir !== pkg.ref.dir) await fenceOtherProjects(host, id, project);
        host.events?.publish({
          type: "installed",
          project,
          packageId: id,
          version,
          waitingForApproval: true,
        });
        throw new ApprovalRequiredError(
          `${
            approval.version === version
              ? `Cannot take ${id}@${version} as it now is into ${project}`
              : `Cannot update ${id} to ${version} in ${project}`
          }: it asks for more than was approved:\n` +
            permissionLines(widened) +
            `\n${stillServing(id, approval, pkg.ref)}; ` +
            `to approve it: ${confirm.approve}`,
        );
      }
      throw new ApprovalRequiredError(
        `Cannot install ${id}@${version} into ${project} without approval. It asks for:\n` +
          (permissions.length ? permissionLines(permissions) : "  nothing (no permissions)") +
          `\nTo approve these for this project and install it: ${confirm.approve}`,
      );
    }

    // `installed` runs before anything of the install is committed, so a
    // failure leaves the project as it was.
    const ids = await readDeclaredIds(project);
    const installed = await runLifecycle(host, project, pkg, "installed", {
      declaredIds: ids,
      payload: { version, previousVersion: ids.includes(id) ? approval?.version ?? null : null },
    });
    if (installed?.outcome === "failed") {
      throw new LifecycleFailedError(
        `Cannot install ${id}@${version} into ${project}: its installed handler ` +
          `${installed.handler} failed: ${printable(installed.error!.message)}\n` +
          `Nothing was installed; fix the handler and install again`,
        { cause: installed.failure },
      );
    }

    await setPackageRef(host.kv, pkg.ref);
    refMoved = true;
    undo.push(async () => {
      await (previous ? setPackageRef(host.kv, previous) : deletePackageRef(host.kv, id));
      refMoved = false;
    });
    if (needsApproval || options.approve) {
      const record: Approval = {
        id,
        version,
        ref: pkg.ref,
        permissions: [...permissions],
        approvedAt: new Date(host.now()).toISOString(),
      };
      await writeApproval(host.kv, project, record);
      undo.push(() =>
        approval ? writeApproval(host.kv, project, approval) : deleteApproval(host.kv, project, id)
      );
    }
    // Re-approving or updating fences off calls started under what served before.
    if (needsApproval || options.approve || previous?.dir !== pkg.ref.dir) {
      await bumpGeneration(await host.projectMemory(project), id);
    }
    if (previous?.dir !== pkg.ref.dir) await fenceOtherProjects(host, id, project);
    if (!ids.includes(id)) {
      await writeDeclaredIds(project, [...ids, id]);
      undo.push(() => writeDeclaredIds(project, ids));
    }
    await announceInstalled(host, project, id, version);
    return { package: pkg, project, approved: needsApproval ? widened : [], installed };
  } catch (error) {
    // Leave nothing behind that this install brought: what it wrote, an
    // archive it unpacked and nothing now points at, and a project memory it
    // created. An undo the disk refuses too leaves the rest to undo still.
    for (const step of undo.reverse()) await step().catch(() => {});
    if (pkg.unpacked && !refMoved) {
      await Deno.remove(pkg.dir, { recursive: true }).catch(() => {});
      // The id's folder in the store, when this was its only artefact.
      await Deno.remove(dirname(pkg.dir)).catch(() => {});
    }
    if (!hadMemory) {
      await host.forgetProject(project).catch(() => {});
      await removeProjectMemory(project);
    }
    if (!hadSyncFolder) await Deno.remove(syncFolder, { recursive: true }).catch(() => {});
    throw error;
  }
}

/**
 * Runs `deno task check` over `dir` and refuses it with every problem as
 * check prints it. A folder is checked as `deno task check` and the install
 * card check it: its sources built first, so a stale built file is rebuilt
 * rather than installed, and the problems are the same, in the same order.
 * An archive is checked as it was packed (its built files are what it is).
 *
 * @throws {PackageCheckError} when check finds problems.
 */
async function admitChecked(host: InstallHost, source: string, dir: string): Promise<void> {
  const isFolder = (await Deno.stat(source).catch(() => null))?.isDirectory ?? false;
  // An archive is checked in its staging folder; a command to run names the author's folder.
  const folder = isFolder ? dir : "<source folder>";
  const options = { pool: host.pool, limits: host.limits, folder };
  const problems = isFolder
    ? (await checkPackage(dir, options)).problems
    : await checkBuiltPackage(dir, options);
  if (problems.length === 0) return;
  const shown = await manifestLabel(dir) ?? source;
  throw new PackageCheckError(
    `Cannot install ${shown}: ${isFolder ? dir : source} does not pass check:\n` +
      problems.map(formatProblem).join("\n") +
      `\nFix these (${taskCommand(`check ${folder}`)} shows them) and install again`,
    problems,
  );
}

/**
 * The permissions a refusal lists, one a line in the words of the install
 * card: those that reach past what Sync guards first, each marked `!` under a
 * warning, as the card sets them apart; then the rest.
 */
function permissionLines(permissions: string[]): string {
  const line = (p: string, mark = "") => `  ${mark}${p} — ${describePermission(p)}`;
  const wide = permissions.filter(isWidePermission);
  const plain = permissions.filter((p) => !isWidePermission(p));
  return [
    ...(wide.length
      ? [
        "  Beyond what Sync guards (approve only a package you trust):",
        ...wide.map((p) => line(p, "! ")),
      ]
      : []),
    ...plain.map((p) => line(p)),
  ].join("\n");
}

/**
 * What serves a project while a widened artefact waits for its approval: the
 * approved artefact, unless it was this very folder, edited in place, so
 * nothing approved is left (as `servingPackage` rules).
 */
function stillServing(id: string, approval: Approval, current: PackageRef): string {
  if (approval.ref.dir !== current.dir) {
    return `${id}@${approval.version} keeps serving this project until a person approves`;
  }
  return `Nothing serves ${id} in this project until a person approves: it was approved ` +
    `from the folder ${current.dir}, which now asks for more`;
}

/** `id@version` from a manifest that may not validate, when both can be read. */
async function manifestLabel(dir: string): Promise<string | undefined> {
  try {
    const raw = JSON.parse(
      await readPackageText(dir, "manifest.json", PACKAGE_FILE_LIMITS.maxManifestBytes),
    );
    if (typeof raw?.id === "string" && typeof raw?.version === "string") {
      return `${raw.id}@${raw.version}`;
    }
  } catch { /* the problems say what is wrong with it */ }
  return undefined;
}

/**
 * The artefact serving `id` is machine-wide, so an update changes what serves
 * in every project that lists it: bump the generation in each remembered one
 * (except `project`, done by the caller) so calls started before commit nothing.
 * A project whose folder is gone is skipped.
 */
async function fenceOtherProjects(host: RemoveHost, id: string, project: string): Promise<void> {
  for await (const entry of host.kv.list<ProjectInfo>({ prefix: projectsPrefix() })) {
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
