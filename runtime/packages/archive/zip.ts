/**
 * Reads zip archives into an entry list, from the central directory: each
 * entry's local header must name the same file, no entry's data may overlap
 * another's, and nothing is inflated past its declared size.
 *
 * @module
 */

import { Inflate } from "fflate";
import type { EntryList } from "./entry_list.ts";
import { crc32 } from "./_crc32.ts";
import { inflateSlices } from "./_inflate.ts";
import { quote, refusal, size } from "./_refusal.ts";
import { decodeUtf8 } from "./_utf8.ts";

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
 *
 * @param bytes The whole archive.
 * @param list Where the entries go, with the archive's name and caps.
 * @throws {ArchiveError} for anything refused: Zip64, multi-part, encrypted,
 *   corrupt or overlapping entries, links and other non-file types, bombs.
 */
export function readZip(bytes: Uint8Array, list: EntryList): void {
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

function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
