/**
 * Writes a fixture Maildir of real-world MIME from a seed, and returns the
 * ground truth tests assert against: each message's path, Message-ID, thread,
 * folder, flags, decoded subject and first line of text, and which are
 * malformed; each thread's messages and whether it lies wholly in Spam/Trash.
 *
 * The layout is what mbsync, offlineimap and notmuch keep: `cur/`, `new/`,
 * `tmp/` at the root (the inbox) and in Maildir++ subfolders (`.Sent`,
 * `.Spam`, `.Trash`, `.Promotions`, `.Lists.deno`), files named
 * `<time>.M<usec>P<pid>Q<n>.<host>` in new/ and with `:2,<flags>` in cur/.
 * Nothing reads the clock or `Math.random`: one seed, one set of bytes
 * (mtimes included).
 *
 * @module
 */

import { join, relative, resolve } from "node:path";
import { encodedWord, foldHeader } from "./_encodings.ts";
import { type AttachmentTruth, type BodyKind, buildBody } from "./_mail_bodies.ts";
import {
  FOLDERS,
  type MaildirFolder,
  type Malformation,
  OWNER,
  planMaildir,
  type PlannedMessage,
} from "./_maildir_plan.ts";
import { Prng } from "./_prng.ts";

export type { AttachmentTruth, BodyKind, MaildirFolder, Malformation };
export { FOLDERS, OWNER };

/** What a parser should read from one message file. */
export interface MessageTruth {
  /** Relative to the Maildir, with `/` separators: `.Sent/cur/…:2,S`. */
  path: string;
  folder: MaildirFolder;
  /** Maildir flags from the file name, sorted; empty in new/. */
  flags: string;
  /** With angle brackets, as in the header; null for the empty file. */
  messageId: string | null;
  /** The thread's root Message-ID; null for malformed messages. */
  threadId: string | null;
  inReplyTo: string | null;
  references: string[];
  /** Decoded; null for the empty file. */
  subject: string | null;
  fromAddress: string | null;
  /** The first line of decoded text (ASCII only where the charset is broken). */
  snippet: string | null;
  kind: BodyKind | "no-header-end" | "empty";
  malformed: Malformation | null;
  brokenCharset: boolean;
  html: boolean;
  charset: string | null;
  crlf: boolean;
  attachments: AttachmentTruth[];
  /** Bytes on disk. */
  size: number;
  /** Modification time, seconds since the epoch (also the Date header). */
  mtime: number;
}

/** One conversation as threading by Message-ID / In-Reply-To / References finds it. */
export interface ThreadTruth {
  /** The root's Message-ID. */
  id: string;
  messageIds: string[];
  folders: MaildirFolder[];
  /** Every message is in Spam or Trash, so the thread is left out. */
  excluded: boolean;
}

/** The ground truth of a written Maildir. */
export interface MaildirTruth {
  seed: number;
  owner: string;
  messages: MessageTruth[];
  threads: ThreadTruth[];
}

/** Options for {@link writeMaildir}. */
export interface WriteMaildirOptions {
  /** How many message files, the empty one and the malformed ones included. */
  messages: number;
  seed?: number;
  /** Seconds since the epoch of the earliest message; 2026-09-01 by default. */
  start?: number;
  /** Also write the ground truth as JSON here; it must lie outside the Maildir. */
  truthFile?: string;
  /** Called every 500 messages and at the end. */
  onProgress?: (written: number, total: number) => void;
}

const HOST = "fixture.example";
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function rfc2822(seconds: number): string {
  const d = new Date(seconds * 1000);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${
    MONTHS[d.getUTCMonth()]
  } ${d.getUTCFullYear()} ` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

function isAscii(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}

function isLatin1(text: string): boolean {
  return /^[\x20-\x7e\xa0-\xff]*$/.test(text);
}

/** A header value for display text, encoded the ways real mailers do. */
function phrase(prng: Prng, text: string): string {
  if (isAscii(text)) return prng.chance(0.1) ? encodedWord(text, "utf-8", "Q") : text;
  if (isLatin1(text) && prng.chance(0.4)) return encodedWord(text, "iso-8859-1", "Q");
  return encodedWord(text, "utf-8", prng.chance(0.5) ? "B" : "Q");
}

function address(prng: Prng, who: { name: string; address: string }): string {
  const name = phrase(prng, who.name);
  return `${isAscii(who.name) ? `"${name}"` : name} <${who.address}>`;
}

/** The path a planned message is written at, relative to the Maildir. */
function pathOf(message: PlannedMessage, prng: Prng): string {
  const folder = message.folder === "INBOX" ? "" : `.${message.folder}/`;
  const unique = `${message.time}.M${prng.int(0, 999_999)}P${prng.int(1000, 65_000)}Q${
    message.seq + 1
  }.${HOST}`;
  return message.inNew ? `${folder}new/${unique}` : `${folder}cur/${unique}:2,${message.flags}`;
}

function messageBytes(message: PlannedMessage, prng: Prng): [Uint8Array, Partial<MessageTruth>] {
  if (message.kind === "empty") return [new Uint8Array(0), {}];
  const eol = message.crlf ? "\r\n" : "\n";
  const headers = [
    `Return-Path: <${message.from.address}>`,
    `Received: from mx.example.net (mx.example.net [192.0.2.${
      prng.int(1, 254)
    }])${eol}\tby ${HOST} with ESMTPS id ${prng.hex(12)};${eol}\t${rfc2822(message.time)}`,
    `From: ${address(prng, message.from)}`,
    `To: ${address(prng, OWNER)}`,
    foldHeader("Subject", phrase(prng, message.subject), eol),
    `Date: ${rfc2822(message.time)}`,
    `Message-ID: ${message.messageId}`,
  ];
  const parent = message.parents.at(-1);
  if (parent) {
    headers.push(`In-Reply-To: ${parent}`);
    if (!message.inReplyToOnly) {
      headers.push(foldHeader("References", message.parents.join(" "), eol));
    }
  }
  if (message.kind === "newsletter") {
    headers.push(
      "List-Id: News Weekly <weekly.news.example.com>",
      `List-Unsubscribe: <https://news.example.com/u/${prng.hex(20)}>`,
    );
  }
  if (message.kind === "no-header-end") {
    // Headers that run to the end of the file, the last one cut mid-word.
    const text = headers.join(eol) + eol + "X-Spam-Report: score=12.4 tests=TRUNC_HE";
    return [new TextEncoder().encode(text), { html: false, charset: null }];
  }
  const head = headers.join(eol) + eol + "MIME-Version: 1.0" + eol;
  const body = buildBody(
    message.kind,
    prng,
    eol,
    message.size === 0 ? 0 : message.size - head.length - 200,
  );
  const text = head + body.headers.join(eol) + eol + eol + body.body;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return [bytes, {
    snippet: body.snippet,
    html: body.html,
    charset: body.charset,
    brokenCharset: body.brokenCharset,
    attachments: body.attachments,
  }];
}

/**
 * Creates `cur/`, `new/`, `tmp/` for every folder, and marks the subfolders
 * with an empty `maildirfolder` file dated `time` (seconds).
 */
async function makeFolders(dir: string, time: number): Promise<void> {
  for (const folder of FOLDERS) {
    const root = folder === "INBOX" ? dir : join(dir, `.${folder}`);
    for (const sub of ["cur", "new", "tmp"]) await Deno.mkdir(join(root, sub), { recursive: true });
    if (folder !== "INBOX") {
      await Deno.writeFile(join(root, "maildirfolder"), new Uint8Array(0));
      await Deno.utime(join(root, "maildirfolder"), time, time);
    }
  }
}

function threadsOf(messages: MessageTruth[]): ThreadTruth[] {
  const threads = new Map<string, ThreadTruth>();
  for (const message of messages) {
    if (message.threadId === null || message.messageId === null) continue;
    let thread = threads.get(message.threadId);
    if (!thread) {
      thread = { id: message.threadId, messageIds: [], folders: [], excluded: true };
      threads.set(message.threadId, thread);
    }
    thread.messageIds.push(message.messageId);
    if (!thread.folders.includes(message.folder)) thread.folders.push(message.folder);
    if (message.folder !== "Spam" && message.folder !== "Trash") thread.excluded = false;
  }
  return [...threads.values()];
}

/**
 * Writes a fixture Maildir into `dir` (made if missing) and returns its
 * ground truth.
 *
 * @example
 * ```ts
 * const truth = await writeMaildir(dir, { messages: 2000, seed: 7 });
 * ```
 */
export async function writeMaildir(
  dir: string,
  options: WriteMaildirOptions,
): Promise<MaildirTruth> {
  const seed = options.seed ?? 1;
  const total = options.messages;
  if (!Number.isInteger(total) || total < 10) {
    throw new RangeError(
      `A fixture Maildir needs at least 10 messages, not ${total}: ask for more.`,
    );
  }
  if (options.truthFile && !relative(resolve(dir), resolve(options.truthFile)).startsWith("..")) {
    throw new Error(
      `The ground truth file ${options.truthFile} lies inside the Maildir ${dir}, where a reader would take it for mail: write it beside the Maildir.`,
    );
  }
  const prng = new Prng(seed);
  const start = options.start ?? Date.UTC(2026, 8, 1) / 1000;
  const plan = planMaildir(prng, total, start);
  await makeFolders(dir, start);
  const messages: MessageTruth[] = [];
  for (const planned of plan) {
    const path = pathOf(planned, prng);
    const [bytes, parsed] = messageBytes(planned, prng);
    const file = join(dir, ...path.split("/"));
    Deno.writeFileSync(file, bytes);
    Deno.utimeSync(file, planned.time, planned.time);
    const empty = planned.kind === "empty";
    messages.push({
      path,
      folder: planned.folder,
      flags: planned.inNew ? "" : planned.flags,
      messageId: planned.messageId,
      threadId: planned.malformed ? null : planned.threadId,
      inReplyTo: planned.parents.at(-1) ?? null,
      references: planned.inReplyToOnly ? [] : planned.parents,
      subject: empty ? null : planned.subject,
      fromAddress: empty ? null : planned.from.address,
      snippet: null,
      kind: planned.kind,
      malformed: planned.malformed,
      brokenCharset: false,
      html: false,
      charset: null,
      crlf: !empty && planned.crlf,
      attachments: [],
      size: bytes.length,
      mtime: planned.time,
      ...parsed,
    });
    if (messages.length % 500 === 0 || messages.length === plan.length) {
      options.onProgress?.(messages.length, plan.length);
    }
  }
  const truth: MaildirTruth = {
    seed,
    owner: OWNER.address,
    messages,
    threads: threadsOf(messages),
  };
  if (options.truthFile) {
    await Deno.writeTextFile(options.truthFile, JSON.stringify(truth, null, 1) + "\n");
  }
  return truth;
}
