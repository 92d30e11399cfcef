/**
 * Builds archives in memory for the archive tests, hostile ones included. Tar
 * headers are written by hand so any type flag, name, prefix or pax record can
 * be set; zips come from fflate's `zipSync` and are patched where a case needs
 * a field it will not write. Bombs are assembled from one sync-flushed deflate
 * segment repeated, so hundreds of MiB of zeros cost nothing to build.
 *
 * @module
 */

import { Deflate, gzipSync, type Zippable, zipSync } from "fflate";

const encoder = new TextEncoder();
const MIB = 1024 * 1024;

/** One tar header, and the body that follows it. */
export interface TarSpec {
  name: string;
  /** Type flag character: "0" file (default), "5" folder, "2" symlink, "x" pax, ... */
  type?: string;
  data?: Uint8Array | string;
  /** Size written in the header; defaults to the data's length. */
  size?: number;
  mode?: number;
  linkname?: string;
  /** The ustar prefix field, joined to the name with "/". */
  prefix?: string;
  /** "gnu" writes GNU's `ustar  ` magic; POSIX `ustar\0` otherwise. */
  magic?: "posix" | "gnu";
}

/** A 512-byte tar header with a correct checksum. */
export function tarHeader(spec: TarSpec): Uint8Array {
  const block = new Uint8Array(512);
  writeText(block, 0, 100, spec.name);
  writeOctal(block, 100, 8, spec.mode ?? (spec.type === "5" ? 0o755 : 0o644));
  writeOctal(block, 108, 8, 1000);
  writeOctal(block, 116, 8, 1000);
  writeOctal(block, 124, 12, spec.size ?? bytesOf(spec.data).length);
  writeOctal(block, 136, 12, 1_700_000_000);
  block[156] = (spec.type ?? "0").charCodeAt(0);
  writeText(block, 157, 100, spec.linkname ?? "");
  if (spec.magic === "gnu") {
    writeText(block, 257, 8, "ustar  \0");
  } else {
    writeText(block, 257, 6, "ustar\0");
    writeText(block, 263, 2, "00");
  }
  writeText(block, 345, 155, spec.prefix ?? "");
  setTarChecksum(block);
  return block;
}

/** Recomputes a header's checksum, e.g. after a test edits a field. */
export function setTarChecksum(block: Uint8Array): void {
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += block[i];
  writeText(block, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
}

/** A header, its body and the zero padding to the next 512-byte boundary. */
export function tarEntry(spec: TarSpec): Uint8Array {
  const data = bytesOf(spec.data);
  return concat([tarHeader(spec), data, new Uint8Array((512 - (data.length % 512)) % 512)]);
}

/** A pax extended header ("x", or "g" for global) carrying `records` for the next entry. */
export function paxSpec(records: Record<string, string>, type: "x" | "g" = "x"): TarSpec {
  let body = "";
  for (const [key, value] of Object.entries(records)) {
    const record = ` ${key}=${value}\n`;
    const bytes = encoder.encode(record).length;
    let length = bytes + String(bytes).length;
    if (String(length).length !== String(bytes).length) length = bytes + String(length).length;
    body += `${length}${record}`;
  }
  return { name: "PaxHeader/entry", type, data: body };
}

/** A GNU "L" header whose body is the next entry's long name. */
export function gnuLongNameSpec(name: string): TarSpec {
  return { name: "././@LongLink", type: "L", data: `${name}\0`, magic: "gnu" };
}

/** A whole tar: the entries (specs, or raw bytes as given) and, unless `end` is false, the end marker. */
export function tar(parts: (TarSpec | Uint8Array)[], end = true): Uint8Array {
  const blocks = parts.map((part) => part instanceof Uint8Array ? part : tarEntry(part));
  if (end) blocks.push(new Uint8Array(1024));
  return concat(blocks);
}

/** A tar compressed with gzip. */
export function tarGz(parts: (TarSpec | Uint8Array)[]): Uint8Array {
  return gzipSync(tar(parts));
}

/** One zip entry: a name ending in "/" is a folder; `mode` is a Unix st_mode. */
export interface ZipSpec {
  name: string;
  data?: Uint8Array | string;
  mode?: number;
}

/** A zip built by fflate's `zipSync`, marked as made on Unix so modes are kept. */
export function zip(specs: ZipSpec[]): Uint8Array {
  const files: Zippable = {};
  for (const spec of specs) {
    const mode = spec.mode ?? (spec.name.endsWith("/") ? 0o040755 : 0o100644);
    files[spec.name] = [bytesOf(spec.data), {
      os: 3,
      attrs: (mode << 16) >>> 0,
      mtime: new Date(2024, 0, 1),
    }];
  }
  return zipSync(files);
}

/** Where in a zip each header for `name` starts: the local one and the central one. */
export function zipHeaders(bytes: Uint8Array, name: string): { local: number; central: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const wanted = encoder.encode(name);
  let local = -1;
  let central = -1;
  for (let at = 0; at + 4 <= bytes.length; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x04034b50 && local === -1) {
      if (sameBytes(bytes.subarray(at + 30, at + 30 + view.getUint16(at + 26, true)), wanted)) {
        local = at;
      }
    } else if (signature === 0x02014b50 && central === -1) {
      if (sameBytes(bytes.subarray(at + 46, at + 46 + view.getUint16(at + 28, true)), wanted)) {
        central = at;
      }
    }
  }
  if (local === -1 || central === -1) throw new Error(`no zip headers for ${name}`);
  return { local, central };
}

/** Writes a little-endian field of `width` bytes (2 or 4) at `at`. */
export function patch(bytes: Uint8Array, at: number, width: 2 | 4, value: number): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (width === 2) view.setUint16(at, value, true);
  else view.setUint32(at, value >>> 0, true);
}

/** Renames an entry in place, in its local and central headers; names must be the same length. */
export function renameInZip(bytes: Uint8Array, from: string, to: string): void {
  const { local, central } = zipHeaders(bytes, from);
  const name = encoder.encode(to);
  if (name.length !== encoder.encode(from).length) throw new Error("names must match in length");
  bytes.set(name, local + 30);
  bytes.set(name, central + 46);
}

/** Deflates `data` and ends on a byte boundary, so segments can be laid end to end. */
export function syncFlushedDeflate(data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  const deflate = new Deflate({ level: 6 }, (chunk) => parts.push(chunk));
  deflate.push(data);
  deflate.flush(true);
  return concat(parts);
}

let zeroSegment: Uint8Array | undefined;

/** Deflate data for `mib` MiB of zeros: one flushed MiB, repeated. Not final. */
export function deflatedZeros(mib: number): Uint8Array[] {
  zeroSegment ??= syncFlushedDeflate(new Uint8Array(MIB));
  return Array.from({ length: mib }, () => zeroSegment!);
}

/** An empty final deflate block (fixed Huffman, end of block), closing a stream of flushed segments. */
const FINAL_BLOCK = new Uint8Array([0x03, 0x00]);

/**
 * A gzip stream that inflates to `prefix` followed by `zeroMiB` MiB of zeros.
 * The trailer's length field says `declaredLength`, which a bomb may lie about;
 * its CRC is left zero, as the reader must refuse before it gets that far.
 */
export function gzipBomb(prefix: Uint8Array, zeroMiB: number, declaredLength: number): Uint8Array {
  const header = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  const trailer = new Uint8Array(8);
  patch(trailer, 4, 4, declaredLength);
  const body = prefix.length ? [syncFlushedDeflate(prefix)] : [];
  return concat([header, ...body, ...deflatedZeros(zeroMiB), FINAL_BLOCK, trailer]);
}

/** A gzip stream of tar entries of one MiB of zeros each, with a trailer that claims 1 KiB. */
export function gzipBombOfEntries(count: number): Uint8Array {
  const header = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  const parts: Uint8Array[] = [header];
  for (let i = 0; i < count; i++) {
    parts.push(syncFlushedDeflate(tarHeader({ name: `zeros-${i}.bin`, size: MIB })));
    parts.push(...deflatedZeros(1));
  }
  const trailer = new Uint8Array(8);
  patch(trailer, 4, 4, 1024);
  return concat([...parts, FINAL_BLOCK, trailer]);
}

/**
 * A one-entry zip whose deflated data is `zeroMiB` MiB of zeros while its
 * headers declare `declaredSize`: honest or lying, as the case needs.
 */
export function zipBomb(name: string, zeroMiB: number, declaredSize: number): Uint8Array {
  const data = concat([...deflatedZeros(zeroMiB), FINAL_BLOCK]);
  const nameBytes = encoder.encode(name);
  const local = new Uint8Array(30);
  patch(local, 0, 4, 0x04034b50);
  patch(local, 4, 2, 20);
  patch(local, 8, 2, 8);
  patch(local, 12, 2, 0x21);
  patch(local, 18, 4, data.length);
  patch(local, 22, 4, declaredSize);
  patch(local, 26, 2, nameBytes.length);
  const central = new Uint8Array(46);
  patch(central, 0, 4, 0x02014b50);
  patch(central, 4, 2, (3 << 8) | 20);
  patch(central, 6, 2, 20);
  patch(central, 10, 2, 8);
  patch(central, 14, 2, 0x21);
  patch(central, 20, 4, data.length);
  patch(central, 24, 4, declaredSize);
  patch(central, 28, 2, nameBytes.length);
  patch(central, 38, 4, 0o100644 << 16);
  const directoryStart = 30 + nameBytes.length + data.length;
  const end = new Uint8Array(22);
  patch(end, 0, 4, 0x06054b50);
  patch(end, 8, 2, 1);
  patch(end, 10, 2, 1);
  patch(end, 12, 4, 46 + nameBytes.length);
  patch(end, 16, 4, directoryStart);
  return concat([local, nameBytes, data, central, nameBytes, end]);
}

/** Joins byte arrays into one. */
export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function bytesOf(data: Uint8Array | string | undefined): Uint8Array {
  if (data === undefined) return new Uint8Array(0);
  return typeof data === "string" ? encoder.encode(data) : data;
}

function writeText(block: Uint8Array, at: number, length: number, text: string): void {
  const bytes = encoder.encode(text);
  if (bytes.length > length) {
    throw new Error(`${JSON.stringify(text)} does not fit ${length} bytes`);
  }
  block.set(bytes, at);
}

function writeOctal(block: Uint8Array, at: number, length: number, value: number): void {
  writeText(block, at, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
