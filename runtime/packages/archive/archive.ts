/**
 * Package archives, read as hostile input. A .tar.gz/.tgz, .tar or .zip is
 * read whole in memory and every entry is checked before anything touches
 * disk: no path may leave the package folder, only plain files and folders are
 * accepted, and sizes are capped before data is inflated, so a bomb is refused
 * while it is still small.
 *
 * The tar reader is written here rather than taken from a library: the ones
 * looked at either rewrite hostile names on the way in (`../x` silently becomes
 * `x`, so it could not be refused or named), or fold unknown type flags into
 * "file" and only read asynchronously. It reads ustar, pax and GNU long names;
 * it is fed the inflated bytes as they come, so each header is judged before
 * its body arrives. Deflate data is inflated with fflate's streaming class, a
 * few KiB of input at a time, and stopped as soon as it passes its budget.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { Inflate } from "fflate";
import { ArchiveError } from "../../errors.ts";
import { ARCHIVE_LIMITS } from "../../limits.ts";
import { pathExists } from "../../internal/path_exists.ts";

/** One file or folder read from an archive. */
export interface ArchiveEntry {
  /** Relative path with `/` separators, normalised: no `./`, no `..`, no trailing `/`. */
  path: string;
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

type Limits = Required<ArchiveOptions>;

const MIB = 1024 * 1024;
/**
 * Compressed bytes handed to the inflater per push. Deflate expands at most
 * about 1032:1, so one push can produce at most ~4 MiB before the caps are
 * looked at again.
 */
const INFLATE_SLICE = 4 * 1024;
/** Largest pax or GNU long-name body: far above any real path, small enough to hold. */
const MAX_META_BYTES = 64 * 1024;
/** Zero padding tar writers may leave after the end marker (a large blocking factor). */
const MAX_TRAILING_BYTES = MIB;
/** Tar headers, padding and pax records allowed per entry on top of the unpacked cap. */
const TAR_OVERHEAD_PER_ENTRY = 8 * 1024;
/** Longest relative path accepted, in UTF-8 bytes. */
const MAX_PATH_BYTES = 1024;
/** Longest single path segment, in UTF-8 bytes (what common file systems allow). */
const MAX_SEGMENT_BYTES = 255;

const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();
const CRC_TABLE = makeCrcTable();

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
  const limits: Limits = {
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
    case "tar": {
      const reader = new TarReader(list, false);
      reader.push(bytes);
      reader.finish();
      break;
    }
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

/**
 * Collects entries and enforces what holds across all of them: the count, the
 * unpacked budget, unique paths, and no entry under a file.
 */
class EntryList {
  readonly archive: string;
  readonly limits: Limits;
  #entries: ArchiveEntry[] = [];
  #kinds = new Map<string, "file" | "dir">();
  #count = 0;
  #unpacked = 0;

  constructor(archive: string, limits: Limits) {
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

  refuse(rawName: string, detail: string): ArchiveError {
    return refusal(this.archive, `entry ${quote(rawName)} ${detail}`);
  }
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

// ---------------------------------------------------------------------------
// gzip

/**
 * Inflates a single-member gzip stream into a tar reader, a slice at a time,
 * and checks its CRC and length trailer. The trailer's declared length is
 * looked at first: when it alone is over the cap nothing is inflated.
 */
function readGzipTar(bytes: Uint8Array, list: EntryList): void {
  const archive = list.archive;
  const start = gzipBodyStart(bytes, archive);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const declaredCrc = view.getUint32(bytes.length - 8, true);
  const declaredLength = view.getUint32(bytes.length - 4, true);
  const cap = tarStreamCap(list.limits);
  // The trailer holds the length modulo 2^32, never more than the truth, so
  // a declared length over the cap is proof enough.
  if (declaredLength > cap) {
    throw refusal(
      archive,
      `the gzip trailer declares ${size(declaredLength)} unpacked, ` +
        `over the ${size(list.limits.maxUnpackedBytes)} limit (or the file is truncated)`,
    );
  }
  const reader = new TarReader(list, true);
  let crc = 0;
  let produced = 0;
  const inflater = new Inflate((chunk: Uint8Array) => {
    produced += chunk.length;
    crc = crc32(chunk, crc);
    reader.push(chunk);
  });
  inflateSlices(
    inflater,
    bytes.subarray(start, bytes.length - 8),
    (message) => refusal(archive, `the gzip data is corrupt or truncated (${message})`),
  );
  if (crc !== declaredCrc || produced % 2 ** 32 !== declaredLength) {
    throw refusal(archive, "the gzip data is corrupt (its checksum or length does not match)");
  }
  reader.finish();
}

/** Skips the gzip header, refusing what fflate's streaming class would not check. */
function gzipBodyStart(bytes: Uint8Array, archive: string): number {
  const truncated = () => refusal(archive, "the gzip data is truncated");
  if (bytes.length < 18) throw truncated();
  if (bytes[2] !== 8) throw refusal(archive, "the gzip data uses an unknown compression method");
  const flags = bytes[3];
  if (flags & 0xe0) throw refusal(archive, "the gzip header is corrupt (reserved flags set)");
  let at = 10;
  if (flags & 0x04) at += 2 + (bytes[at] | (bytes[at + 1] << 8));
  for (const flag of [0x08, 0x10]) {
    if (!(flags & flag)) continue;
    while (at < bytes.length && bytes[at] !== 0) at++;
    at++;
  }
  if (flags & 0x02) at += 2;
  if (at > bytes.length - 8) throw truncated();
  return at;
}

/** Tar bytes a gzip stream may inflate to: the unpacked cap plus room for headers. */
function tarStreamCap(limits: Limits): number {
  return limits.maxUnpackedBytes + limits.maxEntries * TAR_OVERHEAD_PER_ENTRY + MIB;
}

/**
 * Feeds compressed data to an fflate inflater in small slices, so the output
 * callback can stop a bomb after a few MiB. Refusals from the callback pass
 * through; fflate's own errors become refusals through `corrupt`.
 */
function inflateSlices(
  inflater: Inflate,
  compressed: Uint8Array,
  corrupt: (message: string) => ArchiveError,
): void {
  try {
    if (compressed.length === 0) inflater.push(new Uint8Array(0), true);
    for (let at = 0; at < compressed.length; at += INFLATE_SLICE) {
      const end = Math.min(at + INFLATE_SLICE, compressed.length);
      inflater.push(compressed.subarray(at, end), end === compressed.length);
    }
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw corrupt(error instanceof Error ? error.message : String(error));
  }
}

// ---------------------------------------------------------------------------
// tar

/** What to do with a tar body once all of it has arrived. */
type TarBody =
  | { kind: "file"; entry: ArchiveEntry }
  | { kind: "pax"; data: Uint8Array; name: string }
  | { kind: "longName"; data: Uint8Array }
  | { kind: "skip"; name: string };

/**
 * Reads a ustar/pax/GNU tar stream pushed in chunks of any size. Each header
 * is checked, and its declared size reserved against the cap, before its body
 * arrives; bodies go straight into their entry's buffer.
 */
class TarReader {
  #list: EntryList;
  #inGzip: boolean;
  #cap: number;
  #seen = 0;
  #state: "header" | "body" | "end" = "header";
  #block = new Uint8Array(512);
  #blockFill = 0;
  #headers = 0;
  #sawEntry = false;
  #zeroBlocks = 0;
  #body: TarBody | null = null;
  #bodyFill = 0;
  #bodyLeft = 0;
  #padLeft = 0;
  #trailing = 0;
  #pax: Map<string, string> | null = null;
  #longName: string | null = null;

  constructor(list: EntryList, inGzip: boolean) {
    this.#list = list;
    this.#inGzip = inGzip;
    this.#cap = tarStreamCap(list.limits);
  }

  push(chunk: Uint8Array): void {
    this.#seen += chunk.length;
    if (this.#seen > this.#cap) {
      throw this.#refuse(`the tar data passes ${size(this.#cap)} unpacked`);
    }
    let at = 0;
    while (at < chunk.length) {
      const available = chunk.length - at;
      if (this.#state === "end") {
        this.#trailing += available;
        if (this.#trailing > MAX_TRAILING_BYTES) {
          throw this.#refuse(
            this.#inGzip && !this.#sawEntry
              ? "the gzip data does not hold a tar archive"
              : `there is more than ${size(MAX_TRAILING_BYTES)} after the tar end`,
          );
        }
        return;
      }
      if (this.#state === "body") {
        if (this.#bodyLeft > 0) {
          const n = Math.min(this.#bodyLeft, available);
          const target = this.#bodyTarget();
          if (target) target.set(chunk.subarray(at, at + n), this.#bodyFill);
          this.#bodyFill += n;
          this.#bodyLeft -= n;
          at += n;
          if (this.#bodyLeft === 0) this.#completeBody();
        } else {
          const n = Math.min(this.#padLeft, available);
          this.#padLeft -= n;
          at += n;
          if (this.#padLeft === 0) this.#state = "header";
        }
        continue;
      }
      const n = Math.min(512 - this.#blockFill, available);
      this.#block.set(chunk.subarray(at, at + n), this.#blockFill);
      this.#blockFill += n;
      at += n;
      if (this.#blockFill === 512) {
        this.#blockFill = 0;
        this.#readHeader(this.#block);
      }
    }
  }

  /** Called at the end of the data: refuses a stream that stops early. */
  finish(): void {
    if (this.#state === "end") return;
    if (this.#state === "body" && this.#body) {
      const name = this.#body.kind === "file" ? this.#body.entry.path : this.#bodyName();
      throw this.#list.refuse(name, "is truncated");
    }
    // One zero block instead of two is a common writer slip; a stream that
    // ends on a header boundary with no end marker at all was cut short.
    const pending = this.#pax !== null || this.#longName !== null;
    if (this.#blockFill === 0 && this.#zeroBlocks === 1 && !pending) return;
    throw this.#refuse("the tar data is truncated");
  }

  #bodyTarget(): Uint8Array | null {
    const body = this.#body;
    if (!body || body.kind === "skip") return null;
    return body.kind === "file" ? body.entry.data : body.data;
  }

  #bodyName(): string {
    const body = this.#body;
    if (!body || body.kind === "longName") return "(GNU long name)";
    return body.kind === "file" ? body.entry.path : body.name;
  }

  #startBody(bytes: number, body: TarBody): void {
    this.#body = body;
    this.#bodyFill = 0;
    this.#bodyLeft = bytes;
    this.#padLeft = (512 - (bytes % 512)) % 512;
    this.#state = "body";
    if (bytes === 0) this.#completeBody();
  }

  #completeBody(): void {
    const body = this.#body;
    this.#body = null;
    if (body?.kind === "file") {
      this.#list.add(body.entry);
    } else if (body?.kind === "pax") {
      const records = parsePax(body.data);
      if (!records) throw this.#list.refuse(body.name, "has a corrupt pax header");
      this.#pax = records;
    } else if (body?.kind === "longName") {
      const end = body.data.indexOf(0);
      const name = decodeUtf8(body.data.subarray(0, end === -1 ? body.data.length : end));
      if (name === null) throw this.#refuse("a GNU long name is not valid UTF-8");
      this.#longName = name;
    }
    if (this.#padLeft === 0) this.#state = "header";
  }

  #readHeader(block: Uint8Array): void {
    const first = this.#headers++ === 0;
    if (isZeroBlock(block)) {
      if (this.#pax !== null || this.#longName !== null) {
        throw this.#refuse("the tar data is corrupt (an extended header has no entry)");
      }
      this.#zeroBlocks++;
      if (this.#zeroBlocks === 2) this.#state = "end";
      return;
    }
    if (!hasUstarMagic(block)) {
      throw this.#refuse(
        first && this.#inGzip
          ? "the gzip data does not hold a tar archive"
          : "the tar data is corrupt (a header lacks the ustar mark)",
      );
    }
    this.#sawEntry = true;
    const label = readTarString(block, 0, 100) ?? "(unreadable name)";
    if (this.#zeroBlocks > 0) {
      throw this.#list.refuse(label, "follows an end-of-archive block (the tar data is corrupt)");
    }
    if (!checksumMatches(block)) {
      throw this.#list.refuse(label, "has a corrupt tar header (checksum mismatch)");
    }
    const headerSize = readTarNumber(block, 124, 12);
    const mode = readTarNumber(block, 100, 8);
    if (headerSize === null || mode === null) {
      throw this.#list.refuse(label, "has a corrupt tar header (bad number)");
    }
    const flag = block[156];
    switch (flag) {
      case 0x78: // 'x': pax records for the next entry
      case 0x67: // 'g': pax records for all entries, ignored
      case 0x4c: // 'L': GNU long name for the next entry
      case 0x4b: // 'K': GNU long link name, only meaningful for links
        this.#readMeta(flag, label, headerSize);
        return;
    }

    const pax = this.#pax;
    const rawName = this.#entryName(block, label);
    this.#pax = null;
    this.#longName = null;
    if (pax && [...pax.keys()].some((key) => key.startsWith("GNU.sparse."))) {
      throw this.#list.refuse(
        rawName,
        "is a sparse file; only plain files and folders are accepted",
      );
    }
    let kind: "file" | "dir";
    if (flag === 0x30 || flag === 0) kind = rawName.endsWith("/") ? "dir" : "file";
    else if (flag === 0x35) kind = "dir";
    else {throw this.#list.refuse(
        rawName,
        `${describeTarType(flag)}; only files and folders are accepted`,
      );}

    let bytes = headerSize;
    const paxSize = pax?.get("size");
    if (paxSize !== undefined) {
      if (!/^[0-9]+$/.test(paxSize) || !Number.isSafeInteger(Number(paxSize))) {
        throw this.#list.refuse(rawName, "has a corrupt pax size");
      }
      bytes = Number(paxSize);
    }
    const path = this.#list.admit(rawName, kind, bytes);
    if (kind === "dir") {
      if (path !== null) {
        this.#list.add({ path, kind, data: new Uint8Array(0), executable: false });
      }
      this.#startBody(bytes, { kind: "skip", name: rawName });
      return;
    }
    const entry: ArchiveEntry = {
      path: path ?? "",
      kind,
      data: new Uint8Array(bytes),
      executable: (mode & 0o111) !== 0,
    };
    this.#startBody(bytes, { kind: "file", entry });
  }

  #readMeta(flag: number, label: string, bytes: number): void {
    if (bytes > MAX_META_BYTES) {
      throw this.#list.refuse(label, `has an extended header over ${size(MAX_META_BYTES)}`);
    }
    if (flag === 0x78) {
      this.#startBody(bytes, { kind: "pax", data: new Uint8Array(bytes), name: label });
    } else if (flag === 0x4c) {
      this.#startBody(bytes, { kind: "longName", data: new Uint8Array(bytes) });
    } else {
      this.#startBody(bytes, { kind: "skip", name: label });
    }
  }

  /** The entry's name: a pax `path`, else a GNU long name, else ustar prefix + name. */
  #entryName(block: Uint8Array, label: string): string {
    const paxPath = this.#pax?.get("path");
    if (paxPath) return paxPath;
    if (this.#longName !== null) return this.#longName;
    const name = readTarString(block, 0, 100);
    if (name === null) throw this.#list.refuse(label, "has a name that is not valid UTF-8");
    // Only POSIX ustar has a prefix field; GNU keeps other data at that offset.
    if (!isPosixUstar(block)) return name;
    const prefix = readTarString(block, 345, 155);
    if (prefix === null) throw this.#list.refuse(label, "has a name that is not valid UTF-8");
    return prefix ? `${prefix}/${name}` : name;
  }

  #refuse(detail: string): ArchiveError {
    return refusal(this.#list.archive, detail);
  }
}

function describeTarType(flag: number): string {
  switch (flag) {
    case 0x31:
      return "is a hard link";
    case 0x32:
      return "is a symbolic link";
    case 0x33:
      return "is a character device";
    case 0x34:
      return "is a block device";
    case 0x36:
      return "is a FIFO (named pipe)";
    default:
      return `has the unsupported tar type ${JSON.stringify(String.fromCharCode(flag))}`;
  }
}

/** "ustar" at offset 257: POSIX writes `ustar\0`, GNU `ustar ` (with `" \0"` after). */
function hasUstarMagic(block: Uint8Array): boolean {
  return block[257] === 0x75 && block[258] === 0x73 && block[259] === 0x74 &&
    block[260] === 0x61 && block[261] === 0x72;
}

function isPosixUstar(block: Uint8Array): boolean {
  return hasUstarMagic(block) && block[262] === 0;
}

function isZeroBlock(block: Uint8Array): boolean {
  for (let i = 0; i < block.length; i++) if (block[i] !== 0) return false;
  return true;
}

/** The header checksum, summed with its own field as spaces; old writers summed signed bytes. */
function checksumMatches(block: Uint8Array): boolean {
  const stored = readOctal(block, 148, 8);
  if (stored === null) return false;
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < 512; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : block[i];
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  return stored === unsigned || stored === signed;
}

/** A NUL-terminated field as UTF-8, or null when it is not valid UTF-8. */
function readTarString(block: Uint8Array, at: number, length: number): string | null {
  const field = block.subarray(at, at + length);
  const end = field.indexOf(0);
  return decodeUtf8(end === -1 ? field : field.subarray(0, end));
}

/** A numeric field: octal text, or GNU's base-256 form for large values. Null if malformed. */
function readTarNumber(block: Uint8Array, at: number, length: number): number | null {
  if (!(block[at] & 0x80)) return readOctal(block, at, length);
  if (block[at] === 0xff) return null; // negative
  let value = block[at] & 0x7f;
  for (let i = at + 1; i < at + length; i++) value = value * 256 + block[i];
  return Number.isSafeInteger(value) ? value : null;
}

/** Octal digits, optionally space-padded before and ended by NUL or space. */
function readOctal(block: Uint8Array, at: number, length: number): number | null {
  const end = at + length;
  let i = at;
  while (i < end && block[i] === 0x20) i++;
  let value = 0;
  while (i < end && block[i] >= 0x30 && block[i] <= 0x37) value = value * 8 + block[i++] - 0x30;
  if (i < end && block[i] !== 0 && block[i] !== 0x20) return null;
  return value;
}

/** Pax records, `"<length> <key>=<value>\n"` each; null when any is malformed. */
function parsePax(body: Uint8Array): Map<string, string> | null {
  const records = new Map<string, string>();
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    let space = at;
    while (space < body.length && space - at < 20 && body[space] >= 0x30 && body[space] <= 0x39) {
      space++;
    }
    if (space === at || body[space] !== 0x20) return null;
    const length = Number(new TextDecoder().decode(body.subarray(at, space)));
    const end = at + length;
    if (end <= space + 1 || end > body.length || body[end - 1] !== 0x0a) return null;
    const record = decodeUtf8(body.subarray(space + 1, end - 1));
    const equals = record?.indexOf("=") ?? -1;
    if (record === null || equals <= 0) return null;
    records.set(record.slice(0, equals), record.slice(equals + 1));
    at = end;
  }
  return records;
}

// ---------------------------------------------------------------------------
// zip

/** One entry of a zip's central directory, checked but not yet inflated. */
interface ZipRecord {
  rawName: string;
  path: string | null;
  nameBytes: Uint8Array;
  kind: "file" | "dir";
  executable: boolean;
  method: number;
  crc: number;
  compressedBytes: number;
  bytes: number;
  localOffset: number;
  dataStart: number;
}

/**
 * Reads a zip from its central directory, the part that carries sizes and
 * Unix modes. Every entry is checked and every declared size reserved before
 * anything is inflated; then each entry is inflated and stopped as soon as it
 * passes its declared size.
 */
function readZip(bytes: Uint8Array, list: EntryList): void {
  const archive = list.archive;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const corrupt = (detail: string) => refusal(archive, `the zip data is corrupt (${detail})`);
  const end = findZipEnd(bytes, view);
  if (end === -1) throw refusal(archive, "the zip data is truncated (no end record)");
  const count = view.getUint16(end + 10, true);
  const directoryBytes = view.getUint32(end + 12, true);
  const directoryStart = view.getUint32(end + 16, true);
  if (count === 0xffff || directoryBytes === 0xffffffff || directoryStart === 0xffffffff) {
    throw refusal(archive, "Zip64 archives are not accepted");
  }
  if (
    view.getUint16(end + 4, true) !== 0 || view.getUint16(end + 6, true) !== 0 ||
    view.getUint16(end + 8, true) !== count
  ) {
    throw refusal(archive, "multi-part zip archives are not accepted");
  }
  const directoryEnd = directoryStart + directoryBytes;
  if (directoryEnd > end) throw corrupt("central directory out of bounds");

  const records: ZipRecord[] = [];
  let at = directoryStart;
  for (let i = 0; i < count; i++) {
    if (at + 46 > directoryEnd || view.getUint32(at, true) !== 0x02014b50) {
      throw corrupt("bad central directory record");
    }
    const nameLength = view.getUint16(at + 28, true);
    const next = at + 46 + nameLength + view.getUint16(at + 30, true) +
      view.getUint16(at + 32, true);
    if (next > directoryEnd) throw corrupt("central directory record out of bounds");
    records.push(readZipRecord(bytes, view, at, nameLength, list));
    at = next;
  }
  if (at !== directoryEnd) throw corrupt("central directory size does not match");

  for (const record of records) locateZipData(bytes, view, record, directoryStart, list);
  const byOffset = [...records].sort((a, b) => a.localOffset - b.localOffset);
  for (let i = 1; i < byOffset.length; i++) {
    const prior = byOffset[i - 1];
    if (prior.dataStart + prior.compressedBytes > byOffset[i].localOffset) {
      throw list.refuse(byOffset[i].rawName, `overlaps entry ${quote(prior.rawName)}`);
    }
  }

  for (const record of records) {
    if (record.path === null) continue;
    if (record.kind === "dir") {
      list.add({ path: record.path, kind: "dir", data: new Uint8Array(0), executable: false });
      continue;
    }
    const compressed = bytes.subarray(record.dataStart, record.dataStart + record.compressedBytes);
    const data = record.method === 0
      ? compressed.slice()
      : inflateZipEntry(compressed, record, list);
    if (crc32(data) !== record.crc) throw list.refuse(record.rawName, "is corrupt (CRC mismatch)");
    list.add({ path: record.path, kind: "file", data, executable: record.executable });
  }
}

/** Checks one central directory record and reserves its declared size. */
function readZipRecord(
  bytes: Uint8Array,
  view: DataView,
  at: number,
  nameLength: number,
  list: EntryList,
): ZipRecord {
  const madeBy = view.getUint16(at + 4, true) >> 8;
  const flags = view.getUint16(at + 8, true);
  const method = view.getUint16(at + 10, true);
  const crc = view.getUint32(at + 16, true);
  const compressedBytes = view.getUint32(at + 20, true);
  const unpackedBytes = view.getUint32(at + 24, true);
  const external = view.getUint32(at + 38, true);
  const localOffset = view.getUint32(at + 42, true);
  const nameBytes = bytes.subarray(at + 46, at + 46 + nameLength);
  const rawName = decodeUtf8(nameBytes);
  if (rawName === null) {
    throw refusal(
      list.archive,
      `entry ${quote(latin1(nameBytes))} has a name that is neither UTF-8 nor ASCII`,
    );
  }
  if ((flags & 0x41) !== 0 || method === 99) throw list.refuse(rawName, "is encrypted");
  if (
    compressedBytes === 0xffffffff || unpackedBytes === 0xffffffff || localOffset === 0xffffffff
  ) {
    throw list.refuse(rawName, "uses Zip64 sizes, which are not accepted");
  }
  // Unix hosts keep the st_mode in the high half of the external attributes;
  // anything there that is not a file or folder is refused whatever the host says.
  const mode = external >>> 16;
  const type = mode & 0o170000;
  if (type !== 0 && type !== 0o100000 && type !== 0o040000) {
    throw list.refuse(rawName, `${describeUnixType(type)}; only files and folders are accepted`);
  }
  const kind = rawName.endsWith("/") || type === 0o040000 || (type === 0 && (external & 0x10))
    ? "dir"
    : "file";
  if (kind === "dir" && unpackedBytes !== 0) throw list.refuse(rawName, "is a folder with data");
  if (method !== 0 && method !== 8) {
    throw list.refuse(
      rawName,
      `uses compression method ${method}; only stored and deflate are accepted`,
    );
  }
  if (method === 0 && compressedBytes !== unpackedBytes) {
    throw list.refuse(rawName, "is corrupt (stored sizes differ)");
  }
  const path = list.admit(rawName, kind, unpackedBytes);
  const unixHost = madeBy === 3 || madeBy === 19;
  return {
    rawName,
    path,
    nameBytes,
    kind,
    executable: kind === "file" && (unixHost || type !== 0) && (mode & 0o111) !== 0,
    method,
    crc,
    compressedBytes,
    bytes: unpackedBytes,
    localOffset,
    dataStart: 0,
  };
}

/**
 * Finds an entry's data behind its local header. The local name must match
 * the central one: readers that trust different copies see different archives.
 */
function locateZipData(
  bytes: Uint8Array,
  view: DataView,
  record: ZipRecord,
  directoryStart: number,
  list: EntryList,
): void {
  const at = record.localOffset;
  if (at + 30 > directoryStart || view.getUint32(at, true) !== 0x04034b50) {
    throw list.refuse(record.rawName, "is corrupt (its local header is missing)");
  }
  if (view.getUint16(at + 6, true) & 0x41) throw list.refuse(record.rawName, "is encrypted");
  const nameLength = view.getUint16(at + 26, true);
  const localName = bytes.subarray(at + 30, at + 30 + nameLength);
  if (!sameBytes(localName, record.nameBytes)) {
    throw list.refuse(record.rawName, "has a local header that names another file");
  }
  record.dataStart = at + 30 + nameLength + view.getUint16(at + 28, true);
  if (record.dataStart + record.compressedBytes > directoryStart) {
    throw list.refuse(record.rawName, "is truncated");
  }
}

function inflateZipEntry(compressed: Uint8Array, record: ZipRecord, list: EntryList): Uint8Array {
  const out = new Uint8Array(record.bytes);
  let filled = 0;
  const inflater = new Inflate((chunk: Uint8Array) => {
    if (filled + chunk.length > out.length) {
      throw list.refuse(
        record.rawName,
        `inflates past its declared size of ${size(record.bytes)} (a zip bomb)`,
      );
    }
    out.set(chunk, filled);
    filled += chunk.length;
  });
  inflateSlices(
    inflater,
    compressed,
    (message) => list.refuse(record.rawName, `is corrupt or truncated (${message})`),
  );
  if (filled !== out.length) {
    throw list.refuse(record.rawName, "is corrupt (it inflates to less than its declared size)");
  }
  return out;
}

/** The end-of-central-directory record, whose comment must run exactly to the end. */
function findZipEnd(bytes: Uint8Array, view: DataView): number {
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (
      view.getUint32(at, true) === 0x06054b50 &&
      at + 22 + view.getUint16(at + 20, true) === bytes.length
    ) {
      return at;
    }
  }
  return -1;
}

function describeUnixType(type: number): string {
  switch (type) {
    case 0o120000:
      return "is a symbolic link";
    case 0o020000:
      return "is a character device";
    case 0o060000:
      return "is a block device";
    case 0o010000:
      return "is a FIFO (named pipe)";
    case 0o140000:
      return "is a socket";
    default:
      return `has the unsupported file type 0o${type.toString(8)}`;
  }
}

// ---------------------------------------------------------------------------
// small helpers

function refusal(archive: string, detail: string): ArchiveError {
  return new ArchiveError(`Cannot unpack ${archive}: ${detail}`);
}

/** An entry name for a message: JSON-quoted so control characters show, and kept short. */
function quote(name: string): string {
  return JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
}

function size(bytes: number): string {
  if (bytes < MIB) return `${bytes} bytes`;
  return `${Number((bytes / MIB).toFixed(1))} MiB`;
}

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function makeCrcTable(): Int32Array {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
}

/** CRC-32 as gzip and zip use it; pass the previous result to continue a running sum. */
function crc32(data: Uint8Array, previous = 0): number {
  let c = ~previous;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
