/**
 * Plans a fixture Maildir before any byte is written: which messages exist,
 * their threads, folders, senders, dates and flags, and the shape of each
 * body. Newsletters are a third of the messages; a few are malformed.
 *
 * @module
 */

import type { BodyKind } from "./_mail_bodies.ts";
import type { Prng } from "./_prng.ts";
import { asciiSentence, LATIN1_SENTENCES, UTF8_SENTENCES } from "./_words.ts";

/** The folders of a fixture Maildir; `INBOX` is the root, the others Maildir++ subfolders. */
export const FOLDERS = ["INBOX", "Sent", "Spam", "Trash", "Promotions", "Lists.deno"] as const;

/** One of {@link FOLDERS}. */
export type MaildirFolder = (typeof FOLDERS)[number];

/** What makes a malformed message malformed. */
export type Malformation = "no-header-end" | "truncated-base64" | "empty";

/** The person whose mailbox it is. */
export const OWNER = { name: "Ada Lovelace", address: "ada@example.org" };

/** People who write to the owner; some names need encoded words. */
export const CONTACTS = [
  { name: "Jürgen Müller", address: "juergen@example.de" },
  { name: "Émilie Durand", address: "emilie@example.fr" },
  { name: "Grace Hopper", address: "grace@example.com" },
  { name: "Иван Петров", address: "ivan@example.ru" },
  { name: "Linus B.", address: "linus@example.net" },
  { name: "deno-dev list", address: "dev@lists.deno.example" },
] as const;

/** One planned message. */
export interface PlannedMessage {
  seq: number;
  messageId: string | null;
  threadId: string | null;
  parents: string[];
  folder: MaildirFolder;
  inNew: boolean;
  flags: string;
  subject: string;
  from: { name: string; address: string };
  /** Seconds since the epoch. */
  time: number;
  kind: BodyKind | "no-header-end" | "empty";
  malformed: Malformation | null;
  /** For newsletters: the whole file's target size in bytes. */
  size: number;
  /** Lines end in CRLF, otherwise LF. */
  crlf: boolean;
  /** Only In-Reply-To is written, no References. */
  inReplyToOnly: boolean;
}

/** Body shapes of conversation mail, repeated by how common they are; broken charsets are rare. */
const CONVERSATION_KINDS: BodyKind[] = [
  ...Array<BodyKind>(3).fill("plain"),
  ...Array<BodyKind>(2).fill("plain-qp"),
  "plain-base64",
  ...Array<BodyKind>(2).fill("latin1"),
  ...Array<BodyKind>(2).fill("cp1252"),
  ...Array<BodyKind>(4).fill("alternative"),
  "html-only",
  ...Array<BodyKind>(2).fill("nested"),
  "broken-declared-utf8",
  "broken-unknown-charset",
];

function subjectOf(prng: Prng): string {
  const roll = prng.next();
  const long = prng.chance(0.1) ? ` — ${asciiSentence(prng, 12).slice(0, -1)}` : "";
  if (roll < 0.6) return asciiSentence(prng, prng.int(2, 6)).slice(0, -1) + long;
  if (roll < 0.85) return prng.pick(LATIN1_SENTENCES).split(",")[0] + long;
  return prng.pick(UTF8_SENTENCES).slice(0, 24).trim() + long;
}

function sortFlags(flags: string): string {
  return [...new Set(flags)].sort().join("");
}

/** Where a conversation's messages go. */
type ThreadPlace = "inbox" | "list" | "spam" | "trash" | "junk-mix";

function placeOf(prng: Prng): ThreadPlace {
  const roll = prng.next();
  if (roll < 0.55) return "inbox";
  if (roll < 0.7) return "list";
  if (roll < 0.82) return "spam";
  if (roll < 0.92) return "trash";
  return "junk-mix";
}

/** What the planning steps share: the draws, the messages so far, the first day. */
interface Planner {
  prng: Prng;
  out: PlannedMessage[];
  start: number;
}

const DAY = 86_400;

function messageId(planner: Planner, domain: string): string {
  return `<${planner.prng.hex(16)}.${planner.out.length}@${domain}>`;
}

/** The fields every planned message starts from. */
function blank(planner: Planner): Omit<PlannedMessage, "folder" | "kind"> {
  const prng = planner.prng;
  return {
    seq: planner.out.length,
    messageId: null,
    threadId: null,
    parents: [],
    inNew: false,
    flags: "S",
    subject: "",
    from: prng.pick(CONTACTS),
    time: planner.start + prng.int(0, 90 * DAY),
    malformed: null,
    size: 0,
    crlf: prng.chance(0.4),
    inReplyToOnly: false,
  };
}

/**
 * One conversation of `length` messages, each replying to the one before;
 * the owner's replies go to Sent and mark what they answer `R`.
 */
function planThread(planner: Planner, length: number): void {
  const prng = planner.prng;
  const place = placeOf(prng);
  const subject = subjectOf(prng);
  const chain: PlannedMessage[] = [];
  let time = planner.start + prng.int(0, 90 * DAY);
  for (let i = 0; i < length; i++) {
    const own = i % 2 === 1 && (place === "inbox" || place === "list") && prng.chance(0.7);
    let folder: MaildirFolder = own ? "Sent" : place === "list" ? "Lists.deno" : "INBOX";
    if (place === "spam") folder = "Spam";
    if (place === "trash") folder = "Trash";
    if (place === "junk-mix") folder = prng.chance(0.5) ? "Spam" : "Trash";
    if (place === "inbox" && i > 0 && !own && prng.chance(0.15)) folder = "Trash";
    const id = messageId(planner, own ? "example.org" : "mail.example.net");
    const message: PlannedMessage = {
      ...blank(planner),
      folder,
      kind: prng.pick(CONVERSATION_KINDS),
      messageId: id,
      threadId: chain[0]?.messageId ?? id,
      parents: chain.map((m) => m.messageId!),
      subject: i === 0 ? subject : `Re: ${subject}`,
      from: own ? OWNER : place === "list" ? CONTACTS[5] : prng.pick(CONTACTS.slice(0, 5)),
      time,
      flags: folder === "Trash" ? "ST" : prng.chance(0.05) ? "FS" : "S",
      inReplyToOnly: i > 0 && prng.chance(0.3),
    };
    if (own && chain.length > 0) chain[i - 1].flags = sortFlags(chain[i - 1].flags + "R");
    chain.push(message);
    planner.out.push(message);
    time += prng.int(600, 2 * DAY);
  }
}

/** A newsletter, alone in its thread, mostly in Promotions. */
function planNewsletter(planner: Planner): void {
  const prng = planner.prng;
  const roll = prng.next();
  const folder: MaildirFolder = roll < 0.6
    ? "Promotions"
    : roll < 0.8
    ? "INBOX"
    : roll < 0.95
    ? "Spam"
    : "Trash";
  const id = messageId(planner, "news.example.com");
  planner.out.push({
    ...blank(planner),
    folder,
    kind: "newsletter",
    messageId: id,
    threadId: id,
    subject: `Weekly digest: ${asciiSentence(prng, 4).slice(0, -1)}`,
    from: { name: "News Weekly", address: "digest@news.example.com" },
    flags: folder === "Trash" ? "ST" : prng.chance(0.5) ? "S" : "",
    size: prng.int(31_000, 98_000),
  });
}

/**
 * Plans `total` messages from a seed's draws: a third newsletters, one in a
 * thousand of each malformation (at least one), one empty file, the rest
 * conversations.
 *
 * @param start Seconds since the epoch of the earliest message.
 */
export function planMaildir(prng: Prng, total: number, start: number): PlannedMessage[] {
  const planner: Planner = { prng, out: [], start };
  const out = planner.out;
  const broken = Math.max(1, Math.floor(total / 1000));
  const newsletters = Math.round(total / 3);
  for (let left = total - newsletters - 1 - 2 * broken; left > 0;) {
    const length = Math.min(left, prng.chance(0.45) ? 1 : prng.int(2, 6));
    left -= length;
    planThread(planner, length);
  }
  for (let i = 0; i < newsletters; i++) planNewsletter(planner);
  for (let i = 0; i < broken; i++) {
    for (const kind of ["no-header-end", "truncated-base64"] as const) {
      out.push({
        ...blank(planner),
        folder: "INBOX",
        kind,
        malformed: kind,
        messageId: messageId(planner, "broken.example.net"),
        subject: `Broken ${kind} ${i}`,
      });
    }
  }
  out.push({ ...blank(planner), folder: "INBOX", kind: "empty", malformed: "empty", flags: "" });

  // The newest tenth of the inbox and list mail is unseen, still in new/.
  const recent = out.filter((m) => m.folder === "INBOX" || m.folder === "Lists.deno")
    .sort((a, b) => b.time - a.time || a.seq - b.seq);
  for (const message of recent.slice(0, Math.ceil(recent.length / 10))) {
    message.inNew = true;
    message.flags = "";
  }
  return out;
}
