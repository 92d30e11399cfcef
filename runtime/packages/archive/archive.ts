/**
 * Package archives, read as hostile input. A .tar.gz/.tgz, .tar or .zip is
 * read whole in memory and every entry is checked before anything touches
 * disk: no path may leave the package folder, only plain files and folders are
 * accepted, and sizes are capped before data is inflated, so a bomb is refused
 * while it is still small.
 *
 * The formats are read in `tar.ts` (with gzip) and `zip.ts`; what holds across
 * all entries of any format (the caps, the path checks) is in `entry_list.ts`.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { ArchiveError } from "../../errors.ts";
import { ARCHIVE_LIMITS } from "../../limits.ts";
import { pathExists } from "../../internal/path_exists.ts";
import {
  type ArchiveEntry,
  type ArchiveLimits,
  type ArchiveOptions,
  EntryList,
} from "./entry_list.ts";
import { hasUstarMagic, readGzipTar, readTar } from "./tar.ts";
import { readZip } from "./zip.ts";
import { refusal, size } from "./_refusal.ts";

/**
 * Reads a .tar.gz/.tgz, .tar or .zip fully in memory and validates every
 * entry; nothing touches disk. The format is told from the bytes, not the name.
 *
 * @param bytes The archive as received.
 * @param name The archive's name, used in messages only.
 * @param options Caps; each defaults to `ARCHIVE_LIMITS`.
 * @returns The files and folders, in archive order, with normalised paths.
 * @throws {ArchiveError} naming the archive and, where there is one, the
 *   offending entry: an unknown format, a path that is absolute or escapes the
 *   package folder, a bad character in a name, a link, device, FIFO or any other
 *   non-file type, a duplicate path or a file where a folder is needed, too many
 *   entries, too many bytes (compressed or unpacked), encrypted, corrupt or
 *   truncated data.
 */
export function readArchive(
  bytes: Uint8Array,
  name: string,
  options: ArchiveOptions = {},
): ArchiveEntry[] {
  const limits: ArchiveLimits = {
    maxArchiveBytes: options.maxArchiveBytes ?? ARCHIVE_LIMITS.maxArchiveBytes,
    maxUnpackedBytes: options.maxUnpackedBytes ?? ARCHIVE_LIMITS.maxUnpackedBytes,
    maxEntries: options.maxEntries ?? ARCHIVE_LIMITS.maxEntries,
  };
  if (bytes.length > limits.maxArchiveBytes) {
    throw refusal(
      name,
      `the archive is ${size(bytes.length)}, over the ${size(limits.maxArchiveBytes)} limit`,
    );
  }
  const list = new EntryList(name, limits);
  switch (detectFormat(bytes)) {
    case "gzip":
      readGzipTar(bytes, list);
      break;
    case "zip":
      readZip(bytes, list);
      break;
    case "tar":
      readTar(bytes, list);
      break;
    default:
      throw refusal(
        name,
        "it is not a recognised archive; accepted formats are .tar.gz/.tgz (gzip-compressed tar), " +
          ".tar and .zip",
      );
  }
  return list.finish();
}

/**
 * Writes entries under `dir`, which must not exist yet. Everything is written
 * into a sibling temporary folder that is renamed into place at the end, so a
 * failure leaves neither `dir` nor the temporary folder behind. The entries are
 * checked again first, so entries built or edited by a caller cannot escape.
 *
 * @param entries Entries as returned by `readArchive` or `stripCommonFolder`.
 * @param dir The folder to create.
 * @throws {ArchiveError} if `dir` exists, or an entry's path is not a
 *   normalised relative path, appears twice or sits under a file.
 * @throws Deno's file system errors when writing fails (after cleaning up).
 */
export async function writeArchiveEntries(entries: ArchiveEntry[], dir: string): Promise<void> {
  checkEntries(entries, dir);
  if (await pathExists(dir)) {
    throw new ArchiveError(`Cannot unpack into ${dir}: it already exists`);
  }
  const parent = dirname(dir);
  await Deno.mkdir(parent, { recursive: true });
  const temp = join(parent, `.${basename(dir)}.unpacking-${crypto.randomUUID()}`);
  await Deno.mkdir(temp);
  try {
    for (const entry of entries) {
      const target = join(temp, ...entry.path.split("/"));
      if (entry.kind === "dir") {
        await Deno.mkdir(target, { recursive: true });
        continue;
      }
      await Deno.mkdir(dirname(target), { recursive: true });
      const mode = entry.executable ? 0o755 : 0o644;
      // createNew: two entries that one file system sees as the same name
      // (case-insensitive ones) must fail rather than overwrite each other.
      await Deno.writeFile(target, entry.data, { createNew: true, mode });
      if (Deno.build.os !== "windows") await Deno.chmod(target, mode);
    }
    await Deno.rename(temp, dir);
  } catch (error) {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
    throw error;
  }
}

/**
 * If every entry sits under one top-level folder (as npm's `package/` does),
 * drops that folder from every path.
 *
 * @param entries Entries as returned by `readArchive`.
 * @returns New entries without the common folder, or `entries` unchanged when
 *   there is no single top-level folder (or nothing would be left under it).
 */
export function stripCommonFolder(entries: ArchiveEntry[]): ArchiveEntry[] {
  if (entries.length === 0) return entries;
  const top = entries[0].path.split("/")[0];
  let inner = 0;
  for (const entry of entries) {
    if (entry.path === top) {
      if (entry.kind !== "dir") return entries;
    } else if (entry.path.startsWith(`${top}/`)) {
      inner++;
    } else {
      return entries;
    }
  }
  if (inner === 0) return entries;
  return entries
    .filter((entry) => entry.path !== top)
    .map((entry) => ({ ...entry, path: entry.path.slice(top.length + 1) }));
}

/** Re-checks entries handed to `writeArchiveEntries`, whoever built them. */
function checkEntries(entries: ArchiveEntry[], dir: string): void {
  const list = new EntryList(`into ${dir}`, {
    maxArchiveBytes: Infinity,
    maxUnpackedBytes: Infinity,
    maxEntries: Infinity,
  });
  for (const entry of entries) {
    if (entry.kind !== "file" && entry.kind !== "dir") {
      throw list.refuse(entry.path, "is neither a file nor a folder");
    }
    const path = list.admit(entry.path, entry.kind, 0);
    if (path !== entry.path) throw list.refuse(entry.path, "does not have a normalised path");
    list.add(entry);
  }
  list.finish();
}

function detectFormat(bytes: Uint8Array): "gzip" | "zip" | "tar" | null {
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return "gzip";
  if (
    bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b &&
    // A local file header, or the end record of an empty zip.
    ((bytes[2] === 0x03 && bytes[3] === 0x04) || (bytes[2] === 0x05 && bytes[3] === 0x06))
  ) {
    return "zip";
  }
  if (bytes.length >= 512 && hasUstarMagic(bytes)) return "tar";
  return null;
}
