/**
 * The package store: where packages live on this machine and which artefact
 * serves an id now. A folder install is linked (its manifest is re-read on
 * every use, because it is being written right now); an archive is unpacked
 * into `<home>/extensions/store/<id>/<version>-<digest>/`.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { ArchiveError, InvalidInputError, ManifestError, NotFoundError } from "../errors.ts";
import { type Manifest, parseManifest } from "./manifest.ts";
import { readArchive, stripCommonFolder, writeArchiveEntries } from "./archive/archive.ts";
import type { ArchiveEntry } from "./archive/entry_list.ts";
import { ARCHIVE_LIMITS, PACKAGE_FILE_LIMITS } from "../limits.ts";
import { readPackageText } from "./package_file.ts";
import { readFileAtMost } from "../internal/read_file_at_most.ts";
import { packageRefKey, packagesChangedKey } from "./keys.ts";
import { sweepStaleStaging, takeStaging } from "./staging.ts";
import { storageFailure } from "../storage_failure.ts";
import { FileMemo } from "../internal/file_memo.ts";

// What each call would otherwise read and validate again: kept per file while
// the file stays the same, so an edited folder install is still read afresh.
const manifests = new FileMemo<Manifest>();
const serviceSources = new FileMemo<string>();
const typeKinds = new FileMemo<unknown>();

/** Which artefact serves a package id on this machine. */
export interface PackageRef {
  /** The package id. */
  id: string;
  /** The version installed. */
  version: string;
  /** `folder`: linked to a folder being written; `archive`: unpacked into the store. */
  source: "folder" | "archive";
  /** Absolute folder the package's files are read from. */
  dir: string;
  /** First 16 hex digits of the archive's SHA-256, for archives. */
  digest?: string;
  /** When it was installed, as an ISO 8601 time. */
  installedAt: string;
}

/** A package as read from disk now. */
export interface LoadedPackage {
  /** The artefact it was read from. */
  ref: PackageRef;
  /** Its manifest, validated as read now. */
  manifest: Manifest;
  /** The absolute folder its files are read from (the ref's `dir`). */
  dir: string;
}

/**
 * Reads and validates `<dir>/manifest.json`.
 *
 * @throws {ManifestError} when the manifest is missing or invalid.
 */
export async function readManifestAt(dir: string): Promise<Manifest> {
  const file = join(dir, "manifest.json");
  let text: string;
  try {
    text = await readPackageText(dir, "manifest.json", PACKAGE_FILE_LIMITS.maxManifestBytes);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ManifestError(file, [{ path: "", message: "manifest.json is missing" }]);
    }
    if (error instanceof InvalidInputError) {
      throw new ManifestError(file, [{ path: "", message: error.message }]);
    }
    throw error;
  }
  return parseManifest(text, file);
}

/**
 * Reads which artefact serves `id` on this machine.
 *
 * @param kv The installation's KV.
 * @param id The package id.
 * @returns The ref, or null when the package is not installed on this machine.
 */
export async function readPackageRef(kv: Deno.Kv, id: string): Promise<PackageRef | null> {
  return (await kv.get<PackageRef>(packageRefKey(id))).value;
}

/**
 * Loads the package a ref points at, with its manifest as it reads now: read
 * and validated again whenever the file changed since it was last read.
 *
 * @param ref The artefact to read.
 * @returns The package with the manifest as it reads now.
 * @throws {NotFoundError} when the folder is gone.
 * @throws {ManifestError} when its manifest no longer validates, or names another id.
 */
export async function loadPackage(ref: PackageRef): Promise<LoadedPackage> {
  const manifest = await manifests.get(join(ref.dir, "manifest.json"), async () => {
    try {
      await Deno.stat(ref.dir);
    } catch {
      throw new NotFoundError(
        `Cannot load ${ref.id}: its folder ${ref.dir} is gone; install it again`,
      );
    }
    return await readManifestAt(ref.dir);
  });
  if (manifest.id !== ref.id) {
    throw new ManifestError(join(ref.dir, "manifest.json"), [{
      path: "id",
      message: `is "${manifest.id}", but this folder was installed as "${ref.id}"`,
    }]);
  }
  return { ref, manifest, dir: ref.dir };
}

/** A package {@linkcode storePackage} put on this machine. */
export interface StoredPackage extends LoadedPackage {
  /** This call unpacked the archive into the store (it was not there before). */
  unpacked: boolean;
}

/** Options for {@linkcode storePackage}. */
export interface StorePackageOptions {
  /** The installation folder (the store is under it). */
  home: string;
  /** The host's clock, in ms; stamps `installedAt`. */
  now: () => number;
  /**
   * Decides whether a package may be stored: called with the folder (linked,
   * or an archive unpacked into a staging folder) before its manifest is
   * read or anything is renamed into the store; throws to refuse it.
   */
  admit: (dir: string) => Promise<void>;
}

/**
 * Puts a package on this machine from a folder (linked) or an archive
 * (`.tar.gz`, `.tgz`, `.tar`, `.zip`; unpacked into the store) once
 * `options.admit` accepts it, and returns it. An archive is unpacked into a
 * staging folder under the store and renamed into place only after it is
 * admitted. The ref is not moved: {@linkcode setPackageRef} does that once the
 * caller has decided the package may serve.
 *
 * @param source A package folder or archive file, relative to the working folder or absolute.
 * @param options Where the store is, the clock, and what decides admission.
 * @returns The package as stored, with the ref a caller may then set.
 * @throws {NotFoundError} when `source` does not exist.
 * @throws {ManifestError} when the package's manifest is missing or invalid.
 * @throws {ArchiveError} for hostile or broken archives; nothing is left behind.
 * @throws whatever `options.admit` throws; nothing is left behind.
 * @throws {StorageError} when the store's disk is full, read-only or gone; nothing is left behind.
 */
export async function storePackage(
  source: string,
  options: StorePackageOptions,
): Promise<StoredPackage> {
  const path = resolve(source);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch {
    throw new NotFoundError(`Cannot install ${source}: no such folder or archive`);
  }
  // What an install killed mid-way left in staging goes before this one stages.
  await sweepStaleStaging(options.home);
  const installedAt = new Date(options.now()).toISOString();
  if (info.isDirectory) {
    const dir = await Deno.realPath(path);
    await options.admit(dir);
    const manifest = await readManifestAt(dir);
    const ref: PackageRef = {
      id: manifest.id,
      version: manifest.version,
      source: "folder",
      dir,
      installedAt,
    };
    return { ref, manifest, dir, unpacked: false };
  }
  const bytes = await readArchiveFile(source, path, info);
  const entries = stripCommonFolder(await readSourceArchive(bytes, source, path));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const digest = Array.from(hash.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
  const store = storeFolder(options.home);
  const held = await inStore(
    store,
    () => takeStaging(options.home, `${digest}-${crypto.randomUUID().slice(0, 8)}`),
  );
  const staging = held.dir;
  try {
    await inStore(store, () => writeArchiveEntries(entries, staging));
    await options.admit(staging);
    const manifest = await readManifestAt(staging);
    const dir = join(store, manifest.id, `${manifest.version}-${digest}`);
    let exists = false;
    try {
      await Deno.stat(dir);
      exists = true;
    } catch { /* not unpacked yet */ }
    if (!exists) {
      const idDir = join(store, manifest.id);
      await inStore(store, () => Deno.mkdir(idDir, { recursive: true }));
      try {
        await inStore(store, () => Deno.rename(staging, dir));
      } catch (error) {
        // The id's folder goes again when this was to be its first artefact (only empty, it can).
        await Deno.remove(idDir).catch(() => {});
        throw error;
      }
    }
    const ref: PackageRef = {
      id: manifest.id,
      version: manifest.version,
      source: "archive",
      dir,
      digest,
      installedAt,
    };
    return { ref, manifest, dir, unpacked: !exists };
  } finally {
    await held.release();
  }
}

/** Options for {@linkcode withPackageFiles}. */
export interface PackageFilesOptions {
  /** The installation folder (archives are staged under its store). */
  home: string;
}

/**
 * Lays a package's files out to be read, without storing anything: a folder
 * as it is; an archive unpacked (with every check install makes of its
 * entries) into a staging folder that is removed when `use` returns or
 * throws. A process killed meanwhile leaves the staging folder to the next
 * install's or serve's sweep, as an install killed while it stages does.
 *
 * @param source A package folder or archive file.
 * @param options Where the store is.
 * @param use Reads the files in the folder it is given; what it answers is answered.
 * @throws {NotFoundError} when `source` does not exist.
 * @throws {ArchiveError} for hostile or broken archives.
 * @throws {StorageError} when the store's disk is full, read-only or gone.
 */
export async function withPackageFiles<T>(
  source: string,
  options: PackageFilesOptions,
  use: (dir: string) => Promise<T>,
): Promise<T> {
  const path = resolve(source);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch {
    throw new NotFoundError(`Cannot read ${source}: no such folder or archive`);
  }
  if (info.isDirectory) return await use(await Deno.realPath(path));
  const entries = stripCommonFolder(
    await readSourceArchive(await readArchiveFile(source, path, info), source, path),
  );
  await sweepStaleStaging(options.home);
  const store = storeFolder(options.home);
  const held = await inStore(store, () => takeStaging(options.home, `read-${crypto.randomUUID()}`));
  try {
    await inStore(store, () => writeArchiveEntries(entries, held.dir));
    return await use(held.dir);
  } finally {
    await held.release();
  }
}

/** Where archives are unpacked and kept, in the installation `home`. */
function storeFolder(home: string): string {
  return join(home, "extensions", "store");
}

/**
 * Runs one of the store's writes; a disk that refuses it (full, read-only,
 * gone) is told as a refusal naming the store, not as the system's error.
 */
async function inStore<T>(store: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw storageFailure(error, store) ?? error;
  }
}

/**
 * Reads the archive a person named. A file refused as an archive that sits
 * in a package folder (its `manifest.json`, say) was most likely meant as
 * that folder: the refusal then says to give the folder.
 */
async function readSourceArchive(
  bytes: Uint8Array,
  source: string,
  path: string,
): Promise<ArchiveEntry[]> {
  try {
    return readArchive(bytes, source);
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error;
    const inPackage = await Deno.stat(join(dirname(path), "manifest.json"))
      .then((info) => info.isFile, () => false);
    if (!inPackage) throw error;
    throw new ArchiveError(
      `${error.message}; to install a package folder, give the folder that holds ` +
        `manifest.json (${dirname(source)})`,
    );
  }
}

/**
 * An archive's bytes: a regular file (a device or a FIFO would be read
 * without end, or never answer) of at most the archive limit, read without
 * taking in more even if it grows meanwhile.
 *
 * @throws {ArchiveError} when it is not a regular file or is over the limit.
 */
async function readArchiveFile(
  source: string,
  path: string,
  info: Deno.FileInfo,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!info.isFile) {
    throw new ArchiveError(
      `Cannot unpack ${source}: it is neither a folder nor a regular file; ` +
        `give a package folder or an archive (.tar.gz, .tgz, .tar, .zip)`,
    );
  }
  const limit = ARCHIVE_LIMITS.maxArchiveBytes;
  const bytes = info.size > limit ? null : await readFileAtMost(path, limit);
  if (bytes === null) {
    throw new ArchiveError(
      `Cannot unpack ${source}: it is ${info.size > limit ? info.size : "over"} bytes; ` +
        `the limit is ${limit}`,
    );
  }
  return bytes;
}

/**
 * Makes `ref` the artefact that serves its id on this machine.
 *
 * @param kv The installation's KV.
 * @param ref The artefact that serves from now on.
 */
export async function setPackageRef(kv: Deno.Kv, ref: PackageRef): Promise<void> {
  await kv.atomic().set(packageRefKey(ref.id), ref).set(packagesChangedKey(), true).commit();
}

/**
 * Forgets which artefact serves `id` on this machine: an install that failed
 * after it named one puts back what was there before, which may be nothing.
 *
 * @param kv The installation's KV.
 * @param id The package id.
 */
export async function deletePackageRef(kv: Deno.Kv, id: string): Promise<void> {
  await kv.atomic().delete(packageRefKey(id)).set(packagesChangedKey(), true).commit();
}

/**
 * Reads the service module's source text, the file the manifest's `service` names.
 *
 * @param pkg The package, as loaded.
 * @returns The built module's text, as the isolate evaluates it.
 * @throws {InvalidInputError} when the package has no service module.
 */
export async function readServiceSource(pkg: LoadedPackage): Promise<string> {
  if (!pkg.manifest.service) {
    throw new InvalidInputError(`${pkg.manifest.id} has no service module`);
  }
  const { service } = pkg.manifest;
  return await serviceSources.get(join(pkg.dir, service), () => readPackageText(pkg.dir, service));
}

/**
 * The record kinds a package publishes: the `kind` of each of its `types/*.json`
 * that starts with the package id. A type file that is missing or unreadable
 * publishes nothing rather than failing.
 *
 * @param pkg The package, as loaded.
 * @returns Kinds such as `["issues.issue"]`.
 */
export async function publishedKinds(pkg: LoadedPackage): Promise<string[]> {
  const kinds: string[] = [];
  for (const file of pkg.manifest.types ?? []) {
    try {
      const kind = await typeKinds.get(
        join(pkg.dir, file),
        async () => (JSON.parse(await readPackageText(pkg.dir, file)) as { kind?: unknown })?.kind,
      );
      if (typeof kind === "string" && kind.startsWith(`${pkg.manifest.id}.`)) kinds.push(kind);
    } catch {
      // A type file that went missing after install publishes nothing.
    }
  }
  return kinds;
}
