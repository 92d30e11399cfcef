/**
 * Reads tar archives, plain or gzip-compressed, into an entry list.
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

import { Inflate } from "fflate";
import type { ArchiveError } from "../../errors.ts";
import type { ArchiveEntry, ArchiveLimits, EntryList } from "./entry_list.ts";
import { crc32 } from "./_crc32.ts";
import { inflateSlices } from "./_inflate.ts";
import { MIB, refusal, size } from "./_refusal.ts";
import { decodeUtf8 } from "./_utf8.ts";

/** Largest pax or GNU long-name body: far above any real path, small enough to hold. */
const MAX_META_BYTES = 64 * 1024;
/** Zero padding tar writers may leave after the end marker (a large blocking factor). */
const MAX_TRAILING_BYTES = MIB;
/** Tar headers, padding and pax records allowed per entry on top of the unpacked cap. */
const TAR_OVERHEAD_PER_ENTRY = 8 * 1024;

/**
 * Reads an uncompressed tar archive into `list`.
 *
 * @param bytes The whole archive.
 * @param list Where the entries go, with the archive's name and caps.
 * @throws {ArchiveError} for anything the tar reader refuses.
 */
export function readTar(bytes: Uint8Array, list: EntryList): void {
  const reader = new TarReader(list, false);
  reader.push(bytes);
  reader.finish();
}

/**
 * Inflates a single-member gzip stream into a tar reader, a slice at a time,
 * and checks its CRC and length trailer. The trailer's declared length is
 * looked at first: when it alone is over the cap nothing is inflated.
 *
 * @param bytes The whole .tar.gz.
 * @param list Where the entries go, with the archive's name and caps.
 * @throws {ArchiveError} for a corrupt or oversized gzip stream, or anything
 *   the tar reader refuses.
 */
export function readGzipTar(bytes: Uint8Array, list: EntryList): void {
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
function tarStreamCap(limits: ArchiveLimits): number {
  return limits.maxUnpackedBytes + limits.maxEntries * TAR_OVERHEAD_PER_ENTRY + MIB;
}

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

/**
 * "ustar" at offset 257: POSIX writes `ustar\0`, GNU `ustar ` (with `" \0"` after).
 *
 * @param block A tar header block (or the start of an archive).
 */
export function hasUstarMagic(block: Uint8Array): boolean {
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
