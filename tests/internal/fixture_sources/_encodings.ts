/**
 * The byte encodings real mail uses, written by hand so a fixture can also be
 * wrong on purpose: quoted-printable, base64 wrapped at 76, RFC 2047 encoded
 * words, header folding, and the single-byte charsets ISO-8859-1 and
 * windows-1252.
 *
 * @module
 */

const encoder = new TextEncoder();

/** windows-1252's printable characters in 0x80–0x9f, where it differs from ISO-8859-1. */
const CP1252_HIGH = new Map<string, number>([
  ["€", 0x80],
  ["‚", 0x82],
  ["„", 0x84],
  ["…", 0x85],
  ["‘", 0x91],
  ["’", 0x92],
  ["“", 0x93],
  ["”", 0x94],
  ["–", 0x96],
  ["—", 0x97],
  ["™", 0x99],
]);

/** The charsets a fixture body can be written in. */
export type Charset = "utf-8" | "iso-8859-1" | "windows-1252";

/** Encodes text in a charset; a character the charset lacks becomes `?`. */
export function encodeText(text: string, charset: Charset): Uint8Array {
  if (charset === "utf-8") return encoder.encode(text);
  const out: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const high = charset === "windows-1252" ? CP1252_HIGH.get(char) : undefined;
    if (high !== undefined) out.push(high);
    else if (code < 0x80 || (code >= 0xa0 && code < 0x100)) out.push(code);
    else out.push(0x3f);
  }
  return new Uint8Array(out);
}

function isLiteral(byte: number): boolean {
  return (byte >= 33 && byte <= 126 && byte !== 61) || byte === 32 || byte === 9;
}

/**
 * Quoted-printable (RFC 2045 §6.7): lines of at most 76 characters, soft
 * breaks as `=`, trailing blanks encoded, hard breaks written as `eol`.
 */
export function quotedPrintable(bytes: Uint8Array, eol: string): string {
  const lines: string[] = [];
  let line = "";
  const flush = (soft: boolean) => {
    if (!soft && line.length > 0) {
      const last = line.charCodeAt(line.length - 1);
      if (last === 32 || last === 9) line = line.slice(0, -1) + "=" + hex2(last);
    }
    lines.push(soft ? line + "=" : line);
    line = "";
  };
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 10) {
      if (line.endsWith("\r")) line = line.slice(0, -1);
      flush(false);
      continue;
    }
    const piece = isLiteral(byte) ? String.fromCharCode(byte) : "=" + hex2(byte);
    if (line.length + piece.length > 75) flush(true);
    line += piece;
  }
  lines.push(line);
  return lines.join(eol);
}

function hex2(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, "0");
}

/** Base64 wrapped at 76 characters, lines joined by `eol`. */
export function base64Lines(bytes: Uint8Array, eol: string): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  const flat = btoa(binary);
  const lines: string[] = [];
  for (let i = 0; i < flat.length; i += 76) lines.push(flat.slice(i, i + 76));
  return lines.join(eol);
}

/** An RFC 2047 encoded word: `B` (base64) or `Q` (quoted) in a charset. */
export function encodedWord(text: string, charset: Charset, mode: "B" | "Q"): string {
  const bytes = encodeText(text, charset);
  const label = charset === "utf-8" ? "UTF-8" : charset.toUpperCase();
  if (mode === "B") return `=?${label}?B?${base64Lines(bytes, "")}?=`;
  let q = "";
  for (const byte of bytes) {
    if (byte === 32) q += "_";
    else if (/[A-Za-z0-9!*+\-/]/.test(String.fromCharCode(byte))) q += String.fromCharCode(byte);
    else q += "=" + hex2(byte);
  }
  return `=?${label}?Q?${q}?=`;
}

/**
 * Folds a header at spaces so no line passes 78 characters (RFC 5322 §2.2.3);
 * a word longer than the line stays whole.
 */
export function foldHeader(name: string, value: string, eol: string): string {
  const words = value.split(" ");
  const lines: string[] = [];
  let line = name + ":";
  for (const word of words) {
    if (line.length + 1 + word.length > 78 && line.length > name.length + 1) {
      lines.push(line);
      line = "";
    }
    line += " " + word;
  }
  lines.push(line);
  return lines.join(eol);
}
