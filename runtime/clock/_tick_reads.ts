/**
 * What a tick reads of the installation: per project, what was remembered
 * when it was last opened, its attempt stamps and skip marks, approvals and
 * switches — each listed once through its prefix for the whole
 * installation, or project by project when a look reads only a few — and
 * each package's ref and artefact, read once per tick however many
 * projects it serves. Private to the clock's folder.
 *
 * @module
 */
import {
  type Approval,
  approvalsPrefix,
  type LoadedPackage,
  loadPackage,
  type PackageRef,
  packagesChangedKey,
  readPackageRef,
} from "../packages/mod.ts";
import {
  type ProjectInfo,
  projectKey,
  projectsChangedKey,
  projectsPrefix,
} from "../projects/mod.ts";
import {
  clockChangedKey,
  clockOffsPrefix,
  scheduleSkipsPrefix,
  scheduleStampsPrefix,
} from "./keys.ts";
import type { ScheduleStamp, SkipMark } from "./stamps.ts";

/** What the installation holds per project, each by project path. */
export interface ByProject {
  /** What was remembered when each project was last opened. */
  projects: Map<string, ProjectInfo>;
  /** Skip marks, by `id\0handler` (either may be empty). */
  marks: Map<string, Map<string, SkipMark>>;
  /** Attempt stamps, by `id\0handler`. */
  stamps: Map<string, Map<string, ScheduleStamp>>;
  /** Approvals, by package id. */
  approvals: Map<string, Map<string, Approval>>;
  /** Switches turned off, by package id. */
  offs: Map<string, Map<string, unknown>>;
}

/** Reads one tick shares across projects: each artefact and each ref is read once. */
export interface TickReads {
  /** A package's artefact, loaded once per tick. */
  load: (ref: PackageRef) => Promise<LoadedPackage>;
  /** A package's ref, read once per tick. */
  ref: (id: string) => Promise<PackageRef | null>;
  /**
   * What the installation holds per project, read at the start of the tick
   * with one listing each rather than several reads per project.
   */
  byProject: ByProject;
  /** Whether a package that cannot serve would have had anything to run. */
  mayBeScheduled: (id: string) => Promise<boolean>;
}

/**
 * Projects a look reads one by one, at most; past it the look reads the whole
 * installation with one listing per kind, which is cheaper for many.
 */
const READ_ONE_BY_ONE = 64;

/** Entries a listing reads per round trip: the most Deno KV allows. */
const LIST_BATCH = 1_000;

/**
 * The reads of one tick, nothing read yet of the projects.
 *
 * @param kv The installation's KV.
 */
export function tickReads(kv: Deno.Kv): TickReads {
  const reads: TickReads = {
    byProject: emptyByProject(),
    load: memoize((ref: PackageRef) => `${ref.dir}\0${ref.id}`, loadPackage),
    ref: memoize((id: string) => id, (id) => readPackageRef(kv, id)),
    mayBeScheduled: memoize((id: string) => id, (id) => mayBeScheduled(id, reads)),
  };
  return reads;
}

/**
 * What a tick reads of the projects it looks at: project by project when
 * they are few, else the whole installation with one listing per kind.
 *
 * @param kv The installation's KV.
 * @param paths The projects the look reads.
 */
export function readLooked(kv: Deno.Kv, paths: string[]): Promise<ByProject> {
  return paths.length <= READ_ONE_BY_ONE ? readProjects(kv, paths) : readByProject(kv);
}

/**
 * What a tick reads of every project, with one listing of each prefix, all at once.
 *
 * @param kv The installation's KV.
 */
export async function readByProject(kv: Deno.Kv): Promise<ByProject> {
  const [projects, marks, stamps, approvals, offs] = await Promise.all([
    listByProject<ProjectInfo>(kv, projectsPrefix()),
    listByProject<SkipMark>(kv, scheduleSkipsPrefix()),
    listByProject<ScheduleStamp>(kv, scheduleStampsPrefix()),
    listByProject<Approval>(kv, approvalsPrefix()),
    listByProject<unknown>(kv, clockOffsPrefix()),
  ]);
  return {
    projects: new Map([...projects].map(([path, inner]) => [path, inner.get("")!])),
    marks,
    stamps,
    approvals,
    offs,
  };
}

/**
 * The change keys' versionstamps, in one read: equal to an earlier answer
 * when nothing the clock keeps in memory has been written since.
 *
 * @param kv The installation's KV.
 */
export async function readChangeVersions(kv: Deno.Kv): Promise<string> {
  const entries = await kv.getMany([clockChangedKey(), packagesChangedKey(), projectsChangedKey()]);
  return entries.map((entry) => entry.versionstamp ?? "").join("/");
}

/**
 * Whether a package that cannot serve would have had anything to run: its
 * current artefact declares a schedule, or nothing of it can be read any
 * more. A package without a schedule is not the clock's to report on.
 */
async function mayBeScheduled(id: string, reads: TickReads): Promise<boolean> {
  const ref = await reads.ref(id);
  if (!ref) return true;
  try {
    return (await reads.load(ref)).manifest.schedule.length > 0;
  } catch {
    return true;
  }
}

/** `f`, called once per key; later calls with the same key share the first promise. */
function memoize<A, R>(
  keyOf: (arg: A) => string,
  f: (arg: A) => Promise<R>,
): (arg: A) => Promise<R> {
  const seen = new Map<string, Promise<R>>();
  return (arg) => {
    const key = keyOf(arg);
    let result = seen.get(key);
    if (!result) {
      result = f(arg);
      seen.set(key, result);
    }
    return result;
  };
}

function emptyByProject(): ByProject {
  return {
    projects: new Map(),
    marks: new Map(),
    stamps: new Map(),
    approvals: new Map(),
    offs: new Map(),
  };
}

/** What a tick reads of a few projects, project by project. */
async function readProjects(kv: Deno.Kv, paths: string[]): Promise<ByProject> {
  const out = emptyByProject();
  await Promise.all(paths.map(async (path) => {
    const [info, marks, stamps, approvals, offs] = await Promise.all([
      kv.get<ProjectInfo>(projectKey(path)),
      listOfProject<SkipMark>(kv, scheduleSkipsPrefix(path)),
      listOfProject<ScheduleStamp>(kv, scheduleStampsPrefix(path)),
      listOfProject<Approval>(kv, approvalsPrefix(path)),
      listOfProject<unknown>(kv, clockOffsPrefix(path)),
    ]);
    if (info.value) out.projects.set(path, info.value);
    out.marks.set(path, marks);
    out.stamps.set(path, stamps);
    out.approvals.set(path, approvals);
    out.offs.set(path, offs);
  }));
  return out;
}

/** Every entry under one project's `prefix`, by the rest of its key joined with NUL. */
async function listOfProject<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  for await (const entry of kv.list<T>({ prefix })) {
    out.set((entry.key.slice(prefix.length) as string[]).join("\0"), entry.value);
  }
  return out;
}

/**
 * Every entry under `prefix`, keyed `[...prefix, project, ...rest]`, by
 * project and then by the rest of the key joined with NUL (empty when there
 * is no rest): one listing, however many projects.
 */
async function listByProject<T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
): Promise<Map<string, Map<string, T>>> {
  const out = new Map<string, Map<string, T>>();
  for await (const entry of kv.list<T>({ prefix }, { batchSize: LIST_BATCH })) {
    const [project, ...rest] = entry.key.slice(prefix.length) as string[];
    let inner = out.get(project);
    if (!inner) out.set(project, inner = new Map());
    inner.set(rest.join("\0"), entry.value);
  }
  return out;
}
