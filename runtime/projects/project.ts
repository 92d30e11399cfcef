/**
 * Projects: folders on disk. A project's repository holds only
 * `.sync/extensions.json`, the ids installed into it; the installation
 * remembers each project it opened with the ids it declared then.
 *
 * @module
 */
import { isRoot, join } from "../internal/posix_path.ts";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { PROJECT_LIMITS } from "../limits.ts";
import { linkTarget } from "../internal/link_target.ts";
import { isPackageId, notAPackageId } from "../internal/package_id.ts";
import { FileMemo } from "../internal/file_memo.ts";
import { readFileAtMost } from "../internal/read_file_at_most.ts";
import { storageFailure } from "../storage_failure.ts";
import { projectKey, projectsChangedKey } from "./keys.ts";

/** What the installation remembers about a project it opened. */
export interface ProjectInfo {
  /** Absolute, resolved path of the project folder. */
  path: string;
  /** Extension ids the project declared when it was last opened. */
  extensionIds: string[];
  /** When the installation last opened it, as an ISO 8601 time. */
  openedAt: string;
}

/** Path of the file listing a project's installed extension ids. */
export function extensionsFilePath(project: string): string {
  return join(project, ".sync", "extensions.json");
}

/**
 * Resolves a project folder to its absolute real path, links followed: the
 * one spelling by which the installation keys a project.
 *
 * @param dir The project folder, relative to the working folder or absolute.
 * @throws {NotFoundError} when it does not exist or is not a folder.
 * @throws {InvalidInputError} when its real path is too long to key a project by.
 */
export function resolveProjectDir(dir: string): Promise<string> {
  try {
    return Promise.resolve(resolveProjectDirNow(dir));
  } catch (error) {
    return Promise.reject(error);
  }
}

function resolveProjectDirNow(dir: string): string {
  let real: string;
  let info: Deno.FileInfo;
  // Synchronous: each is one system call, made at every handler call.
  try {
    real = Deno.realPathSync(dir);
    info = Deno.statSync(real);
  } catch {
    throw new NotFoundError(
      `Cannot open project ${dir}: the folder does not exist; check the path, or create the ` +
        `folder first`,
    );
  }
  if (!info.isDirectory) throw new NotFoundError(`Cannot open project ${dir}: it is not a folder`);
  refuseHoldingFolder(real, dir);
  // Refused here, where every command and the app meet a project, rather than
  // as a failed write after a call ran (its receipt could not be kept).
  return keyableProjectPath(real, dir);
}

const pathEncoder = new TextEncoder();

/** The person's home folder as given and as resolved, read again only when `HOME` changes. */
let knownHome: { given: string; real: string } | null = null;

/**
 * Refuses a folder that holds everything else, which is no project: the
 * filesystem root, and the person's home folder itself (`HOME`, read here for
 * every caller, so no route, command or endpoint can leave it out).
 */
function refuseHoldingFolder(real: string, dir: string): void {
  if (isRoot(real)) {
    throw new InvalidInputError(
      `Cannot open ${dir} as a project: it is the filesystem root; open the project's own folder`,
    );
  }
  if (real === personHome()) {
    throw new InvalidInputError(
      `Cannot open ${dir} as a project: it is your home folder; open the project's own folder`,
    );
  }
}

/** The person's home folder, resolved; null when `HOME` is not set or not readable. */
function personHome(): string | null {
  let given: string | undefined;
  try {
    given = Deno.env.get("HOME");
  } catch {
    return null;
  }
  if (!given) return null;
  if (knownHome?.given !== given) {
    let real = given;
    try {
      real = Deno.realPathSync(given);
    } catch {
      // A home folder that is not there holds no project either way.
    }
    knownHome = { given, real };
  }
  return knownHome.real;
}

/**
 * Answers `path` when the installation can key a project by it.
 *
 * @param path The project's path, resolved.
 * @param given The folder as the person gave it, for the message.
 * @throws {InvalidInputError} when the path is longer than `PROJECT_LIMITS.maxPathBytes`.
 */
export function keyableProjectPath(path: string, given: string = path): string {
  // Checked at every handler call: a path short enough in UTF-16 code units
  // is short enough in UTF-8 bytes (at most three for each), without encoding it.
  if (path.length * 3 <= PROJECT_LIMITS.maxPathBytes) return path;
  const bytes = pathEncoder.encode(path).byteLength;
  if (bytes > PROJECT_LIMITS.maxPathBytes) {
    throw new InvalidInputError(
      `Cannot use ${given} as a project: its path is ${bytes} bytes long; a project's path may ` +
        `be at most ${PROJECT_LIMITS.maxPathBytes} bytes. Move the project to a shorter path`,
    );
  }
  return path;
}

/**
 * Reads the extension ids a project declares (`[]` when it declares none),
 * each once, in the order the file lists them.
 *
 * @param project The project folder.
 * @throws {InvalidInputError} when `.sync/extensions.json` is not a list of ids.
 */
export async function readDeclaredIds(project: string): Promise<string[]> {
  const file = extensionsFilePath(project);
  return [...await declaredIdsMemo.get(file, () => readDeclaredIdsAt(file))];
}

// Read at every call of a handler: kept while the file stays the same.
const declaredIdsMemo = new FileMemo<readonly string[]>();

async function readDeclaredIdsAt(file: string): Promise<string[]> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  // A repository carries this file: a link (to /dev/zero, to a file elsewhere)
  // or a FIFO would be read without end, never answer, or read what is not its.
  if (!info.isFile) {
    throw new InvalidInputError(
      `${file} is not a plain file (it is ${
        info.isSymlink ? "a link" : "not a file"
      }); it lists the project's extensions: replace it with the file itself, or delete it`,
    );
  }
  const bytes = await readFileAtMost(file, PROJECT_LIMITS.maxDeclarationBytes);
  if (bytes === null) {
    throw new InvalidInputError(
      `${file} is larger than ${PROJECT_LIMITS.maxDeclarationBytes} bytes; it lists the ` +
        `project's extensions, a short list: fix or delete the file`,
    );
  }
  const text = new TextDecoder().decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`${file} is not JSON: ${(error as Error).message}`);
  }
  const list = (value as { extensions?: unknown })?.extensions;
  if (!Array.isArray(list) || !list.every((id) => typeof id === "string" && id.length > 0)) {
    throw new InvalidInputError(
      `${file} must be { "extensions": ["<id>", …] }; fix or delete the file`,
    );
  }
  // A name no package can have would be looked up as if it were one (and
  // `constructor` or `__proto__` found where nobody put it).
  const strangers = (list as string[]).filter((id) => !isPackageId(id));
  if (strangers.length > 0) {
    throw new InvalidInputError(
      `${file} lists ${strangers.slice(0, 3).map((id) => notAPackageId(id)).join("; ")}` +
        `${
          strangers.length > 3 ? ` (and ${strangers.length - 3} more)` : ""
        }; fix or delete the file`,
    );
  }
  return [...new Set(list as string[])];
}

/**
 * Writes the project's declared ids to `.sync/extensions.json`, each once and
 * sorted; written to a temp file and renamed, so a reader never sees half a file.
 *
 * @param project The project folder; its `.sync/` is created when missing.
 * @param ids The extension ids installed into the project.
 * @throws {InvalidInputError} when the project's `.sync` is a link: nothing is written through it.
 * @throws {StorageError} when the disk is full or the folder read-only: the file is left as it was.
 */
export async function writeDeclaredIds(project: string, ids: string[]): Promise<void> {
  const file = extensionsFilePath(project);
  const folder = join(project, ".sync");
  // Written only into the project's own folder, never where a link points.
  const target = await linkTarget(folder);
  if (target !== null) {
    throw new InvalidInputError(
      `Cannot write ${file}: ${folder} is a link (to ${target}); Sync writes a project's ` +
        `.sync only in the project itself. Replace the link with a folder`,
    );
  }
  const temp = `${file}.${crypto.randomUUID()}.tmp`;
  const body = JSON.stringify({ extensions: [...new Set(ids)].sort() }, null, 2) + "\n";
  try {
    await Deno.mkdir(folder, { recursive: true });
    await Deno.writeTextFile(temp, body);
    await Deno.rename(temp, file);
  } catch (error) {
    // A half-written temp file is never read; it is not left behind either.
    await Deno.remove(temp).catch(() => {});
    throw storageFailure(error, file) ?? error;
  }
}

/**
 * Remembers a project: reads what it declares now and keeps it in the
 * installation, for the clock to tick with. Opening a project (the lifecycle
 * domain's `openProject`) does this and runs the `opened` handlers. When a
 * newer opening was remembered meanwhile, that one is kept and answered.
 *
 * @param kv The installation's KV.
 * @param dir The project folder.
 * @param options The host's clock, in ms, for `openedAt`.
 * @returns What the installation now remembers of the project.
 * @throws {NotFoundError} when the folder does not exist.
 * @throws {InvalidInputError} when `.sync/extensions.json` is malformed.
 */
export async function rememberProject(
  kv: Deno.Kv,
  dir: string,
  options: { now: () => number },
): Promise<ProjectInfo> {
  const path = await resolveProjectDir(dir);
  const info: ProjectInfo = {
    path,
    extensionIds: await readDeclaredIds(path),
    openedAt: new Date(options.now()).toISOString(),
  };
  // The newest opening wins; the check keeps a slower, older one from overwriting it.
  while (true) {
    const current = await kv.get<ProjectInfo>(projectKey(path));
    if (current.value && current.value.openedAt > info.openedAt) return current.value;
    const op = kv.atomic().check(current).set(projectKey(path), info);
    if ((await op.set(projectsChangedKey(), true).commit()).ok) return info;
  }
}

/**
 * Reads what the installation remembers about a project.
 *
 * @param kv The installation's KV.
 * @param path The project's resolved path.
 * @returns What was remembered when it was last opened, or null when it never was.
 */
export async function readProject(kv: Deno.Kv, path: string): Promise<ProjectInfo | null> {
  return (await kv.get<ProjectInfo>(projectKey(path))).value;
}
