/**
 * The MIME bodies fixture messages carry, one builder per kind, each returning
 * its headers, its bytes (as a binary string: one character per byte) and what
 * a parser should read from it: the first line of text, the attachments.
 *
 * @module
 */

import { base64Lines, type Charset, encodeText, quotedPrintable } from "./_encodings.ts";
import { newsletterHtml } from "./_newsletter.ts";
import type { Prng } from "./_prng.ts";
import {
  asciiParagraphs,
  asciiSentence,
  CP1252_SENTENCES,
  LATIN1_SENTENCES,
  UTF8_SENTENCES,
} from "./_words.ts";

/** The shapes of body a fixture message can have. */
export type BodyKind =
  | "plain"
  | "plain-qp"
  | "plain-base64"
  | "latin1"
  | "cp1252"
  | "alternative"
  | "html-only"
  | "nested"
  | "newsletter"
  | "broken-declared-utf8"
  | "broken-unknown-charset"
  | "truncated-base64";

/** An attachment as a parser should list it. */
export interface AttachmentTruth {
  filename: string;
  mimeType: string;
  /** Decoded size in bytes. */
  size: number;
  /** Shown inside the HTML (`Content-ID`, disposition inline). */
  inline: boolean;
}

/** One built body. */
export interface BuiltBody {
  /** Content headers, each a whole (possibly folded) header. */
  headers: string[];
  /** The body bytes, one character per byte. */
  body: string;
  /** The first line of text a parser should decode. */
  snippet: string;
  html: boolean;
  /** The charset the text part declares. */
  charset: string;
  /** The declared charset is wrong or unknown: only `snippet` (ASCII) is asserted. */
  brokenCharset: boolean;
  attachments: AttachmentTruth[];
}

/** Bytes as a binary string, one character per byte. */
export function binary(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return out;
}

function textPart(text: string, charset: Charset, cte: string, eol: string): [string[], string] {
  const bytes = encodeText(text, charset);
  const label = charset === "utf-8" ? "utf-8" : charset.toUpperCase();
  const headers = [
    `Content-Type: text/plain; charset="${label}"`,
    `Content-Transfer-Encoding: ${cte}`,
  ];
  if (cte === "quoted-printable") return [headers, quotedPrintable(bytes, eol)];
  if (cte === "base64") return [headers, base64Lines(bytes, eol)];
  return [headers, binary(bytes).replaceAll("\n", eol)];
}

function htmlOf(snippet: string, prng: Prng): string {
  return `<html><body><p>${snippet}</p><p>${
    asciiSentence(prng, 10)
  } &amp; more.</p><table><tr><td>${asciiSentence(prng, 4)}</td></tr></table></body></html>\n`;
}

function htmlPart(html: string, eol: string): [string[], string] {
  return [
    ['Content-Type: text/html; charset="utf-8"', "Content-Transfer-Encoding: quoted-printable"],
    quotedPrintable(encodeText(html, "utf-8"), eol),
  ];
}

function part([headers, body]: [string[], string], eol: string): string {
  return headers.join(eol) + eol + eol + body;
}

function multipart(
  subtype: string,
  boundary: string,
  parts: string[],
  eol: string,
  close = true,
): [string[], string] {
  const body = "This is a multi-part message in MIME format." + eol +
    parts.map((p) => `--${boundary}${eol}${p}${eol}`).join("") +
    (close ? `--${boundary}--${eol}` : "");
  return [[`Content-Type: multipart/${subtype};${eol} boundary="${boundary}"`], body];
}

/** Attachment bytes: a random block repeated, so large ones cost little to make. */
function attachmentBytes(prng: Prng, size: number): Uint8Array {
  const block = new Uint8Array(4096);
  for (let i = 0; i < block.length; i++) block[i] = prng.int(0, 255);
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i += block.length) out.set(block.subarray(0, size - i), i);
  return out;
}

function attachmentPart(
  prng: Prng,
  file: AttachmentTruth,
  eol: string,
  cut = false,
): string {
  const disposition = file.inline ? "inline" : "attachment";
  const headers = [
    `Content-Type: ${file.mimeType}; name="${file.filename}"`,
    "Content-Transfer-Encoding: base64",
    `Content-Disposition: ${disposition}; filename="${file.filename}"`,
  ];
  if (file.inline) headers.push(`Content-ID: <${file.filename}@fixture>`);
  let body = base64Lines(attachmentBytes(prng, file.size), eol);
  if (cut) body = body.slice(0, Math.floor(body.length / 2) + 3);
  return headers.join(eol) + eol + eol + body;
}

/**
 * multipart/mixed > multipart/related > (multipart/alternative, an inline
 * image), then an attachment — cut in the middle of its base64, with no
 * closing boundary, when `cut`.
 */
function nestedBody(prng: Prng, eol: string, rest: string, cut: boolean): BuiltBody {
  const boundary = () => `----=_Part_${prng.hex(8)}_${prng.hex(6)}`;
  const base = { html: false, brokenCharset: false, attachments: [] as AttachmentTruth[] };
  const snippet = prng.chance(0.5) ? asciiSentence(prng, 9) : prng.pick(LATIN1_SENTENCES);
  const image: AttachmentTruth = {
    filename: `logo-${prng.hex(4)}.png`,
    mimeType: "image/png",
    size: prng.int(800, 12_000),
    inline: true,
  };
  const large = prng.chance(0.2);
  const file: AttachmentTruth = {
    filename: prng.pick(["report.pdf", "invoice-2026.pdf", "slides.pdf", "data.csv.gz"]),
    mimeType: "application/octet-stream",
    size: large ? prng.int(200_000, 600_000) : prng.int(2_000, 40_000),
    inline: false,
  };
  const text = part(textPart(snippet + rest, "utf-8", "quoted-printable", eol), eol);
  const html = part(
    htmlPart(
      htmlOf(snippet, prng).replace(
        "</body>",
        `<img src="cid:${image.filename}@fixture"></body>`,
      ),
      eol,
    ),
    eol,
  );
  const alternative = part(multipart("alternative", boundary(), [text, html], eol), eol);
  const related = part(
    multipart("related", boundary(), [alternative, attachmentPart(prng, image, eol)], eol),
    eol,
  );
  const [headers, body] = multipart(
    "mixed",
    boundary(),
    [related, attachmentPart(prng, file, eol, cut)],
    eol,
    !cut,
  );
  return {
    ...base,
    headers,
    body: cut ? body.slice(0, body.lastIndexOf(eol)) : body,
    snippet,
    charset: "utf-8",
    html: true,
    attachments: [image, file],
  };
}

/**
 * Builds one body of a kind.
 *
 * @param size For newsletters: about how many bytes the body takes.
 */
export function buildBody(kind: BodyKind, prng: Prng, eol: string, size: number): BuiltBody {
  const boundary = () => `----=_Part_${prng.hex(8)}_${prng.hex(6)}`;
  const rest = "\n\n" + asciiParagraphs(prng, prng.int(2, 8)) + "\n";
  const base = { html: false, brokenCharset: false, attachments: [] as AttachmentTruth[] };
  switch (kind) {
    case "plain":
    case "plain-qp":
    case "plain-base64": {
      const snippet = prng.chance(0.5) ? asciiSentence(prng, 8) : prng.pick(UTF8_SENTENCES);
      const cte = kind === "plain" ? "8bit" : kind === "plain-qp" ? "quoted-printable" : "base64";
      const [headers, body] = textPart(snippet + rest, "utf-8", cte, eol);
      return { ...base, headers, body, snippet, charset: "utf-8" };
    }
    case "latin1": {
      const snippet = prng.pick(LATIN1_SENTENCES);
      const [headers, body] = textPart(snippet + rest, "iso-8859-1", "quoted-printable", eol);
      return { ...base, headers, body, snippet, charset: "iso-8859-1" };
    }
    case "cp1252": {
      const snippet = prng.pick(CP1252_SENTENCES);
      const [headers, body] = textPart(snippet + rest, "windows-1252", "8bit", eol);
      return { ...base, headers, body, snippet, charset: "windows-1252" };
    }
    case "broken-declared-utf8":
    case "broken-unknown-charset": {
      // An ASCII first line, then ISO-8859-1 bytes under a label that is not theirs.
      const snippet = asciiSentence(prng, 7);
      const bytes = encodeText(`${snippet}\n${prng.pick(LATIN1_SENTENCES)}${rest}`, "iso-8859-1");
      const label = kind === "broken-declared-utf8" ? "utf-8" : "x-unknown-fixture";
      return {
        ...base,
        headers: [`Content-Type: text/plain; charset=${label}`, "Content-Transfer-Encoding: 8bit"],
        body: binary(bytes).replaceAll("\n", eol),
        snippet,
        charset: label,
        brokenCharset: true,
      };
    }
    case "alternative": {
      const snippet = asciiSentence(prng, 9);
      const [headers, body] = multipart("alternative", boundary(), [
        part(textPart(snippet + rest, "utf-8", "quoted-printable", eol), eol),
        part(htmlPart(htmlOf(snippet, prng), eol), eol),
      ], eol);
      return { ...base, headers, body, snippet, charset: "utf-8", html: true };
    }
    case "html-only": {
      const snippet = asciiSentence(prng, 9);
      const [headers, body] = htmlPart(htmlOf(snippet, prng), eol);
      return { ...base, headers, body, snippet, charset: "utf-8", html: true };
    }
    case "nested":
    case "truncated-base64":
      return nestedBody(prng, eol, rest, kind === "truncated-base64");
    case "newsletter": {
      const snippet = `${asciiSentence(prng, 6)} View this email in your browser.`;
      const text = part(
        textPart(snippet + rest, "utf-8", "quoted-printable", eol),
        eol,
      );
      const html = part([
        ['Content-Type: text/html; charset="utf-8"', "Content-Transfer-Encoding: quoted-printable"],
        newsletterHtml(prng, size - text.length, eol),
      ], eol);
      const [headers, body] = multipart("alternative", boundary(), [text, html], eol);
      return { ...base, headers, body, snippet, charset: "utf-8", html: true };
    }
  }
}
