/**
 * What an install would replace. A package id has one current artefact on
 * the machine, serving every project that lists the id; installing another
 * package under the same id — from another folder, from an archive where a
 * folder served (or the other way round), or an older version — replaces it
 * for all of them. Install and the install card find it here, in one rule, so
 * that the card asks exactly when install would refuse without a person's
 * word.
 *
 * An archive after an archive at the same or a newer version is an update,
 * and a folder installed again is the same package: neither asks.
 *
 * @module
 */
import { compareVersions, type PackageRef, readPackageRef } from "../packages/mod.ts";
import { type ProjectInfo, projectsPrefix, readDeclaredIds } from "../projects/mod.ts";

/** The package an install would bring: its version and where it comes from. */
export interface IncomingPackage {
  /** The package id. */
  id: string;
  /** Its version. */
  version: string;
  /** `folder`: linked; `archive`: unpacked into the store. */
  source: "folder" | "archive";
  /** The folder's real path, for a folder. */
  folder?: string;
}

/** What an install would replace, and why it asks. */
export interface Replaced {
  /** The package id. */
  id: string;
  /** The version installed now. */
  version: string;
  /** Where it was installed from: a linked folder or an archive. */
  source: "folder" | "archive";
  /** The folder it serves from (an archive's folder in the store). */
  dir: string;
  /** `another-source`: another folder, or another kind of source; `older`: the incoming version is older; in that order. */
  reasons: ("another-source" | "older")[];
  /** `hello 1.0.0 from /home/ada/sync/extensions/hello`, or `… from an archive (digest …)`. */
  text: string;
  /** Why it asks, in words: `the new one is older and comes from another folder`. */
  why: string;
}

/**
 * Finds the package an install of `incoming` into `project` would replace:
 * the artefact serving its id on this machine, when this project or another
 * the installation remembers lists the id, and the incoming package comes
 * from another source or is older. Null when nothing would be replaced.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param incoming The package to install.
 */
export async function findReplaced(
  kv: Deno.Kv,
  project: string,
  incoming: IncomingPackage,
): Promise<Replaced | null> {
  const current = await readPackageRef(kv, incoming.id);
  if (!current) return null;
  const reasons: Replaced["reasons"] = [];
  if (compareVersions(incoming.version, current.version) < 0) reasons.push("older");
  if (isAnotherSource(current, incoming)) reasons.push("another-source");
  if (reasons.length === 0 || !await isListed(kv, project, incoming.id)) return null;
  return {
    id: current.id,
    version: current.version,
    source: current.source,
    dir: current.dir,
    reasons,
    text: `${current.id} ${current.version} from ${placeOf(current)}`,
    why: `the new one ${
      reasons.map((reason) =>
        reason === "older"
          ? "is older"
          : `comes from ${
            incoming.source === "archive"
              ? "an archive"
              : current.source === "folder"
              ? "another folder"
              : "a folder"
          }`
      ).join(" and ")
    }`,
  };
}

/**
 * The words for a replacement, after "it": `would replace hello 1.0.0 from
 * …/extensions/hello in every project that lists hello; the new one is older
 * and comes from another folder`.
 *
 * @param replaced What would be replaced.
 */
export function replacementText(replaced: Replaced): string {
  return `would replace ${replaced.text} in every project that lists ${replaced.id}; ` +
    replaced.why;
}

function isAnotherSource(current: PackageRef, incoming: IncomingPackage): boolean {
  if (current.source !== incoming.source) return true;
  return incoming.source === "folder" && current.dir !== incoming.folder;
}

/**
 * Where a package comes from, as a person reads it: its folder, or an archive.
 *
 * @param ref The artefact.
 */
export function placeOf(ref: Pick<PackageRef, "source" | "dir" | "digest">): string {
  return ref.source === "folder"
    ? ref.dir
    : `an archive${ref.digest ? ` (digest ${ref.digest})` : ""}`;
}

/**
 * Whether a project lists `id`: this one, or one the installation remembers
 * whose folder is still there. A ref no project lists replaces nothing anyone uses.
 */
async function isListed(kv: Deno.Kv, project: string, id: string): Promise<boolean> {
  if ((await readDeclaredIds(project).catch((): string[] => [])).includes(id)) return true;
  for await (const entry of kv.list<ProjectInfo>({ prefix: projectsPrefix() })) {
    if (entry.value.path === project) continue;
    if ((await readDeclaredIds(entry.value.path).catch((): string[] => [])).includes(id)) {
      return true;
    }
  }
  return false;
}
