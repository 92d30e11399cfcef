/**
 * One mail file read with postal-mime and turned into the shape handlers
 * get: addresses flattened, the text from the plain parts (an HTML-only
 * part turned to text), cut to its limit, attachments listed by name, type
 * and size only.
 *
 * @module
 */
import PostalMime from "postal-mime";
import type { Address as MimeAddress, Email } from "postal-mime";
import {
  type Address,
  htmlToText,
  type ParseBounds,
  type ParsedMessage,
} from "../runtime/parsers/protocol.ts";

/** One text part of a MIME node as postal-mime keeps it while it assembles a body. */
interface TextEntryItem {
  type: "text" | "subMessage";
  value: unknown;
}

/** The parts postal-mime found, per node: its plain and HTML text entries. */
type TextMap = Map<unknown, { plain?: TextEntryItem[]; html?: TextEntryItem[] }>;

/**
 * Parses one message.
 *
 * @param bytes The file's bytes.
 * @param bounds What the answer is held to.
 * @throws {Error} in postal-mime's words when the file is no message it can read.
 */
export async function parseMailMessage(
  bytes: Uint8Array,
  bounds: ParseBounds,
): Promise<ParsedMessage> {
  refuseManyEncodedWords(bytes, bounds.maxEncodedWords);
  const parser = new PostalMime({
    attachmentEncoding: "arraybuffer",
    maxNestingDepth: bounds.maxMimeDepth,
  });
  const email: Email = await parser.parse(bytes);
  const full = bodyText(email, (parser as unknown as { textMap?: TextMap }).textMap, bounds);
  const textCut = full.length > bounds.maxTextChars;
  // Headers are as long as the file makes them: each is cut, so the answer stays small.
  const field = (text: string) => cut(text, bounds.maxFieldChars);
  return {
    messageId: field(email.messageId?.trim() ?? "") || null,
    inReplyTo: field(email.inReplyTo?.trim() ?? "") || null,
    references: (email.references ?? "").match(/<[^<>\s]*>/g)?.slice(0, bounds.maxAddresses)
      .map(field) ?? [],
    subject: field(email.subject ?? ""),
    from: email.from ? flatten([email.from], 1, field)[0] ?? null : null,
    to: flatten(email.to ?? [], bounds.maxAddresses, field),
    cc: flatten(email.cc ?? [], bounds.maxAddresses, field),
    date: isoDate(email.date),
    text: textCut ? cut(full, bounds.maxTextChars) : full,
    textCut,
    attachments: email.attachments.slice(0, bounds.maxAttachments).map((attachment) => ({
      filename: attachment.filename == null ? null : field(attachment.filename),
      mimeType: field(attachment.mimeType),
      size: typeof attachment.content === "string"
        ? attachment.content.length
        : attachment.content.byteLength,
    })),
  };
}

/**
 * Refuses a file holding more than `max` encoded words (`=?`), counted in
 * one pass over its bytes: postal-mime would take minutes on a header of
 * 100,000 of them, and a parse past its deadline is not interrupted.
 *
 * @throws {Error} in words past `max`.
 */
function refuseManyEncodedWords(bytes: Uint8Array, max: number): void {
  let count = 0;
  let at = bytes.indexOf(0x3d); // "="
  while (at !== -1 && at + 1 < bytes.length) {
    if (bytes[at + 1] === 0x3f && ++count > max) { // "?"
      throw new Error(`it holds more than ${max} encoded words (=?…?=); it is not read`);
    }
    at = bytes.indexOf(0x3d, at + 1);
  }
}

/**
 * The message's text: each node's plain part, or its HTML part turned to
 * text by {@linkcode htmlToText} when it has no plain one. postal-mime keeps
 * the parts per node while it parses (a field of the pinned version); when
 * that is not there, its own `text` is taken, or the HTML turned to text.
 */
function bodyText(email: Email, textMap: TextMap | undefined, bounds: ParseBounds): string {
  const enough = { maxChars: bounds.maxTextChars + 1 };
  if (!(textMap instanceof Map)) {
    if (email.text !== undefined) return email.text.trim();
    return email.html ? htmlToText(email.html, enough) : "";
  }
  const parts: string[] = [];
  let length = 0;
  for (const entry of textMap.values()) {
    if (length > bounds.maxTextChars) break;
    const plain = entry.plain?.filter((item) => item.type === "text");
    const html = entry.html?.filter((item) => item.type === "text");
    let text = "";
    if (plain && plain.length > 0) text = plain.map((item) => String(item.value)).join("\n");
    else if (html && html.length > 0) {
      text = html.map((item) => htmlToText(String(item.value), enough)).join("\n");
    }
    text = text.trim();
    if (text === "") continue;
    parts.push(text);
    length += text.length + 2;
  }
  return parts.join("\n\n");
}

/** `text` cut to `max` characters, never inside a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

/** Groups unwrapped into their members, at most `max` addresses, each field cut by `field`. */
function flatten(list: MimeAddress[], max: number, field: (text: string) => string): Address[] {
  const out: Address[] = [];
  for (const entry of list) {
    const members = entry.group ? entry.group : [entry];
    for (const member of members) {
      if (out.length >= max) return out;
      if (member.address === undefined) continue;
      out.push({ name: field(member.name ?? ""), address: field(member.address) });
    }
  }
  return out;
}

/** The Date header as ISO 8601, or null when postal-mime could not read it as a date. */
function isoDate(date: string | undefined): string | null {
  if (!date) return null;
  const ms = Date.parse(date);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(date)) return null;
  return new Date(ms).toISOString();
}
