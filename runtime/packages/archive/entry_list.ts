/**
 * The entries of one archive as they are read, whatever the format: each
 * entry's path is checked and normalised, and the caps that hold across all
 * entries (count, unpacked size, unique paths, nothing under a file) are
 * enforced from the headers, before any data is inflated.
 *
 * @module
 */

import type { ArchiveError } from "../../errors.ts";
import { quote, refusal, size } from "./_refusal.ts";

/** One file or folder read from an archive. */
export interface ArchiveEntry {
  /** Relative path with `/` separators, normalised: no `./`, no `..`, no trailing `/`. */
  path: string;
  /** A plain file or a folder; nothing else is accepted. */
  kind: "file" | "dir";
  /** The file's bytes; empty for folders. */
  data: Uint8Array;
  /** Whether the archive marked the file executable; always false for folders. */
  executable: boolean;
}

/** Caps for one archive; each defaults to `ARCHIVE_LIMITS`. */
export interface ArchiveOptions {
  /** Size of the archive as given (compressed). */
  maxArchiveBytes?: number;
  /** Size of all entries together once unpacked. */
  maxUnpackedBytes?: number;
  /** Number of entries, files and folders together. */
  maxEntries?: number;
}

/** Caps for one archive, each set. */
export type ArchiveLimits = Required<ArchiveOptions>;

/** Longest relative path accepted, in UTF-8 bytes. */
const MAX_PATH_BYTES = 1024;
/** Longest single path segment, in UTF-8 bytes (what common file systems allow). */
const MAX_SEGMENT_BYTES = 255;

const utf8Encoder = new TextEncoder();

/**
 * Collects entries and enforces what holds across all of them: the count, the
 * unpacked budget, unique paths, and no entry under a file.
 */
export class EntryList {
  /** The archive's name, as refusals print it. */
  readonly archive: string;
  /** The caps this archive is read under. */
  readonly limits: ArchiveLimits;
  #entries: ArchiveEntry[] = [];
  #kinds = new Map<string, "file" | "dir">();
  #count = 0;
  #unpacked = 0;

  /**
   * An empty list for one archive.
   *
   * @param archive The archive's name, as refusals print it.
   * @param limits The caps to enforce.
   */
  constructor(archive: string, limits: ArchiveLimits) {
    this.archive = archive;
    this.limits = limits;
  }

  /**
   * Checks one entry from its header, before any of its data is read, and
   * reserves its declared size. Returns the normalised path, or null for the
   * archive's own root folder (`./`), which is skipped.
   */
  admit(rawName: string, kind: "file" | "dir", declaredBytes: number): string | null {
    this.#count++;
    if (this.#count > this.limits.maxEntries) {
      throw this.refuse(rawName, `is past the limit of ${this.limits.maxEntries} entries`);
    }
    const path = normalisePath(rawName, (detail) => this.refuse(rawName, detail));
    if (path === "") {
      if (kind === "dir") return null;
      throw this.refuse(rawName, "has no file name");
    }
    const prior = this.#kinds.get(path);
    if (prior === kind) {
      throw this.refuse(rawName, `appears twice${rawName === path ? "" : ` (as ${quote(path)})`}`);
    }
    if (prior) throw this.refuse(rawName, "is both a file and a folder");
    this.#kinds.set(path, kind);
    this.reserve(rawName, declaredBytes);
    return path;
  }

  /** Counts bytes against the unpacked cap; called before they are inflated. */
  reserve(rawName: string, bytes: number): void {
    this.#unpacked += bytes;
    if (this.#unpacked > this.limits.maxUnpackedBytes) {
      throw this.refuse(
        rawName,
        `brings the unpacked size past the ${size(this.limits.maxUnpackedBytes)} limit`,
      );
    }
  }

  /** Appends an entry admitted before, once its data is complete. */
  add(entry: ArchiveEntry): void {
    this.#entries.push(entry);
  }

  /** Refuses entries that would sit under a file, and returns the list. */
  finish(): ArchiveEntry[] {
    for (const entry of this.#entries) {
      for (let at = entry.path.indexOf("/"); at !== -1; at = entry.path.indexOf("/", at + 1)) {
        const parent = entry.path.slice(0, at);
        if (this.#kinds.get(parent) === "file") {
          throw this.refuse(entry.path, `sits under ${quote(parent)}, which is a file`);
        }
      }
    }
    return this.#entries;
  }

  /** The refusal of one entry, naming the archive and the entry as the archive spells it. */
  refuse(rawName: string, detail: string): ArchiveError {
    return refusal(this.archive, `entry ${quote(rawName)} ${detail}`);
  }
}

/**
 * Turns an archive name into a safe relative path, or throws through `fail`.
 * `./a//b/` becomes `a/b`; anything that could land outside the package folder
 * on any system is refused rather than repaired, so the archive's author hears
 * about it.
 */
function normalisePath(raw: string, fail: (detail: string) => ArchiveError): string {
  if (raw.length === 0) throw fail("has an empty name");
  if (hasControlCharacter(raw)) throw fail("has a NUL or control character in its name");
  if (raw.startsWith("/") || raw.startsWith("\\") || /^[A-Za-z]:/.test(raw)) {
    throw fail("has an absolute path");
  }
  if (raw.includes("\\")) throw fail("has a backslash in its name");
  const segments: string[] = [];
  for (const segment of raw.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") throw fail("escapes the package folder");
    if (utf8Encoder.encode(segment).length > MAX_SEGMENT_BYTES) {
      throw fail(`has a name part longer than ${MAX_SEGMENT_BYTES} bytes`);
    }
    segments.push(segment);
  }
  const path = segments.join("/");
  if (utf8Encoder.encode(path).length > MAX_PATH_BYTES) {
    throw fail(`has a path longer than ${MAX_PATH_BYTES} bytes`);
  }
  return path;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}
