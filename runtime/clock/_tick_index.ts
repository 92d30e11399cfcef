/**
 * What the clock keeps between looks so that a look over many projects
 * reads only those that may have something to do. Private to the clock's
 * folder.
 *
 * @module
 */
import type { PackageRef } from "../packages/mod.ts";
import { isFolder } from "../internal/is_folder.ts";
import type { TickReads } from "./_tick_reads.ts";

/**
 * What a look learnt, kept for the next. It holds for as long as the
 * installation's change keys have not moved (every writer of the scheduled
 * list, the switch, approvals, refs and remembered projects moves one) and
 * every serving artefact's manifest reads the same. The clock's own stamps
 * and skip marks do not move them: a stamp only ever moves later, so one kept
 * from before can only make a project looked at sooner than needed, and a
 * project the clock ran or passed over something in is looked at in full at
 * the next look anyway.
 */
export interface TickIndex {
  /** The change keys' versionstamps when it was made. */
  versions: string;
  /** The scheduled list, in its order. */
  order: string[];
  /** Each id's serving artefact and its manifest as JSON, when it was made. */
  artefacts: Map<string, { ref: PackageRef; manifest: string }>;
  /**
   * Per project, the time before which a look finds nothing to do there; -Infinity
   * for a project looked at in full every time (something ran or was passed over).
   */
  quietUntil: Map<string, number>;
}

/**
 * `index` when it still holds: no change key moved since it was made, and
 * every serving artefact's manifest reads as it did then.
 *
 * @param index What the last look kept, if anything.
 * @param versions The change keys' versionstamps now.
 * @param reads This tick's reads, through which each artefact is loaded.
 */
export async function indexStillHolds(
  index: TickIndex | undefined,
  versions: string,
  reads: TickReads,
): Promise<TickIndex | undefined> {
  if (!index || index.versions !== versions) return undefined;
  for (const { ref, manifest } of index.artefacts.values()) {
    try {
      if (JSON.stringify((await reads.load(ref)).manifest) !== manifest) return undefined;
    } catch {
      return undefined;
    }
  }
  return index;
}

/**
 * The projects of the scheduled list a look must read: those whose quiet
 * time has come, and those whose folder is gone.
 *
 * @param index What the last look kept, still holding.
 * @param at When the clock looks, in ms.
 */
export async function projectsToLook(index: TickIndex, at: number): Promise<string[]> {
  const looked: string[] = [];
  for (const path of index.order) {
    // A project with nothing due is passed over, once its folder is seen still there.
    if ((index.quietUntil.get(path) ?? -Infinity) > at && await isFolder(path)) continue;
    looked.push(path);
  }
  return looked;
}

/**
 * The index a look over every scheduled project leaves for the next.
 *
 * @param versions The change keys' versionstamps the look began with.
 * @param order The scheduled list, in its order.
 * @param quietUntil Per project, the time before which nothing there comes due.
 * @param reads The look's reads: every remembered project, and the artefacts read.
 */
export async function newTickIndex(
  versions: string,
  order: string[],
  quietUntil: Map<string, number>,
  reads: TickReads,
): Promise<TickIndex> {
  const artefacts = new Map<string, { ref: PackageRef; manifest: string }>();
  const ids = new Set<string>();
  for (const info of reads.byProject.projects.values()) {
    for (const id of info.extensionIds) ids.add(id);
  }
  for (const id of ids) {
    const ref = await reads.ref(id);
    if (!ref) continue;
    try {
      artefacts.set(id, { ref, manifest: JSON.stringify((await reads.load(ref)).manifest) });
    } catch {
      // An artefact that cannot be read now is noticed when it can: the project
      // it serves was passed over, so it is looked at in full every time.
    }
  }
  return { versions, order, artefacts, quietUntil };
}
