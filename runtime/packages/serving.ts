/**
 * Which artefact serves a package in a project. The artefact current on this
 * machine serves a project that approved its permissions; a newer one that
 * asks for more waits for a person, and meanwhile the artefact the project
 * approved keeps serving (never silently disabled, never silently widened).
 * Calls, the clock and `sync list` all go by this one rule.
 *
 * @module
 */
import { ApprovalRequiredError, NotFoundError } from "../errors.ts";
import { type Approval, readApproval, widenedPermissions } from "./approval.ts";
import { approvablePermissions } from "./approvable_permissions.ts";
import { type LoadedPackage, loadPackage, type PackageRef, readPackageRef } from "./store.ts";
import { approvalKey, packageRefKey } from "./keys.ts";

/** Options for {@linkcode servingPackage}. */
export interface ServingOptions {
  /** The ids the project lists as installed (`.sync/extensions.json`, or as remembered). */
  declaredIds: readonly string[];
  /**
   * Reads an artefact; defaults to {@linkcode loadPackage}. The clock passes
   * one that reads each artefact once per tick, however many projects it serves.
   */
  load?: (ref: PackageRef) => Promise<LoadedPackage>;
  /** The project's approval of the package, when the caller already read it. */
  approval?: Approval | null;
  /** The ref serving the id on this machine, when the caller already read it. */
  ref?: PackageRef | null;
}

/**
 * The package that serves `id` in `project` now: the current artefact when
 * its permissions are approved, else the previously approved artefact while
 * the newer one waits for a person.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param id The package id.
 * @param options The project's installed ids, and what the caller already read.
 * @throws {NotFoundError} when the package is not installed in the project or on this machine.
 * @throws {ApprovalRequiredError} when nothing approved can serve.
 */
export async function servingPackage(
  kv: Deno.Kv,
  project: string,
  id: string,
  options: ServingOptions,
): Promise<LoadedPackage> {
  const declared = options.declaredIds;
  if (!declared.includes(id)) {
    throw new NotFoundError(
      `${id} is not installed in ${project}` +
        (declared.length
          ? ` (installed: ${declared.join(", ")})`
          : " (nothing is installed there)") +
        `; install it with sync install <folder|archive> --project ${project}`,
    );
  }
  // Both read at once: one wait rather than two.
  const [approval, read] = await Promise.all([
    options.approval !== undefined ? options.approval : readApproval(kv, project, id),
    options.ref !== undefined ? options.ref : readPackageRef(kv, id),
  ]);
  if (!approval) {
    throw new ApprovalRequiredError(
      `${id} is listed in ${project} but not approved on this machine; ` +
        `run: sync install <folder|archive> --project ${project} --approve`,
    );
  }
  const load = options.load ?? loadPackage;
  const ref = read;
  if (!ref) return await load(approval.ref);
  const current = await load(ref);
  const standing = standingOf(approval, ref, approvablePermissions(current.manifest));
  if (standing.widened.length === 0) return current;
  if (standing.fallback) {
    try {
      return await load(standing.fallback.ref);
    } catch { /* the approved artefact is gone; say what needs approving */ }
  }
  throw new ApprovalRequiredError(
    `${id}@${current.manifest.version} asks for ${
      standing.widened.join(", ")
    }, which ${project} has not approved; ` +
      `run sync install with --approve to approve it`,
  );
}

/** What {@linkcode servingPackage} reads of one id: the project's approval and the machine's ref. */
export interface ServingEntries {
  /** The project's approval of the package; null when it has none. */
  approval: Approval | null;
  /** The artefact serving the id on this machine; null when it is not installed here. */
  ref: PackageRef | null;
}

/** Keys one Deno KV `getMany` reads at most. */
const READ_AT_ONCE = 10;

/**
 * Reads the approval and the ref of every id at once (one read for up to
 * five ids), for {@linkcode servingPackage} to be given: a call resolves the
 * package it calls and every other the project lists with one read.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param ids The package ids.
 * @returns Each id's entries.
 */
export async function readServingEntries(
  kv: Deno.Kv,
  project: string,
  ids: readonly string[],
): Promise<Map<string, ServingEntries>> {
  const keys = ids.flatMap((id) => [approvalKey(project, id), packageRefKey(id)]);
  const reads: Promise<Deno.KvEntryMaybe<unknown>[]>[] = [];
  for (let at = 0; at < keys.length; at += READ_AT_ONCE) {
    reads.push(kv.getMany<unknown[]>(keys.slice(at, at + READ_AT_ONCE)));
  }
  const entries = (await Promise.all(reads)).flat();
  return new Map(ids.map((id, i) => [id, {
    approval: entries[2 * i].value as Approval | null,
    ref: entries[2 * i + 1].value as PackageRef | null,
  }]));
}

/**
 * How an installed id stands in a project, as `sync list` tells it: whether
 * its current artefact is on this machine and readable, and whether the
 * project approved it or what serves while it waits.
 */
export type ServingState =
  | { state: "not-on-machine" }
  | {
    state: "cannot-load";
    message: string;
    /** How the artefact that cannot be read was installed: a linked folder, or an archive. */
    source: PackageRef["source"];
  }
  | { state: "approved"; current: LoadedPackage }
  | { state: "not-approved"; current: LoadedPackage }
  | {
    state: "awaits-approval";
    current: LoadedPackage;
    /** The permissions the current artefact asks for beyond the approval. */
    widened: string[];
    /** The version that serves meanwhile; null when nothing approved is left to serve. */
    serves: string | null;
  };

/**
 * Reads how `id` stands in `project` (see {@linkcode ServingState}). Unlike
 * {@linkcode servingPackage} it throws nothing for a package that cannot
 * serve: it says why.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param id The package id.
 */
export async function readServingState(
  kv: Deno.Kv,
  project: string,
  id: string,
): Promise<ServingState> {
  const approval = await readApproval(kv, project, id);
  const ref = await readPackageRef(kv, id);
  if (!ref) return { state: "not-on-machine" };
  let current: LoadedPackage;
  try {
    current = await loadPackage(ref);
  } catch (error) {
    return { state: "cannot-load", message: (error as Error).message, source: ref.source };
  }
  if (!approval) return { state: "not-approved", current };
  const standing = standingOf(approval, ref, approvablePermissions(current.manifest));
  if (standing.widened.length === 0) return { state: "approved", current };
  return {
    state: "awaits-approval",
    current,
    widened: standing.widened,
    serves: standing.fallback?.version ?? null,
  };
}

/**
 * The words `sync list` prints for a readable package's standing: `approved`,
 * `not approved here`, or `<v> awaits approval of <permissions>; <v> serves`
 * (`nothing serves` when no approved artefact is left).
 *
 * @param serving A state that has a current artefact.
 */
export function describeServingState(
  serving: Extract<ServingState, { current: LoadedPackage }>,
): string {
  switch (serving.state) {
    case "approved":
      return "approved";
    case "not-approved":
      return "not approved here";
    case "awaits-approval":
      return `${serving.current.manifest.version} awaits approval of ${
        serving.widened.join(", ")
      }; ${serving.serves === null ? "nothing serves" : `${serving.serves} serves`}`;
  }
}

/** How a project's approval stands towards the artefact current on this machine. */
interface Standing {
  /** Permissions the current artefact asks for beyond the approval; empty when it may serve. */
  widened: string[];
  /** The approval whose artefact serves while the current one waits, if there is one. */
  fallback: Approval | null;
}

function standingOf(
  approval: Approval,
  ref: PackageRef,
  permissions: readonly string[],
): Standing {
  const widened = widenedPermissions(approval.permissions, permissions);
  // A folder edited in place has no approved artefact left to fall back on.
  const fallback = widened.length > 0 && approval.ref.dir !== ref.dir ? approval : null;
  return { widened, fallback };
}
