/**
 * What a thread record's fields keep of one message: enough to tell whether its file changed
 * (file name without flags, size, mtime), to thread it again without parsing it, and to find
 * its text in the record's content (`chars`: the length of its block there).
 */
export interface IndexEntry {
  /** Relative to the Maildir, as last seen (flags included). */
  file: string;
  size: number;
  mtime: number | null;
  /** With angle brackets, as in the header; null when the message has none. */
  messageId: string | null;
  /** The message it replies to: the last of References, or In-Reply-To. */
  parent: string | null;
  /** The first of References, when it is not `parent`: the conversation's start. */
  root: string | null;
  /** ISO 8601; null when the message has no readable date. */
  date: string | null;
  /** The sender's address. */
  from: string | null;
  subject: string;
  folder: string;
  flags: string;
  /** The length of the message's block in the record's content. */
  chars: number;
}

/** The entry's values read back from a record's fields, or null when they are not an entry. */
export function indexEntry(value: unknown): IndexEntry | null {
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const text = (x: unknown) => typeof x === "string" ? x : null;
  if (
    typeof v.file !== "string" || typeof v.size !== "number" || typeof v.chars !== "number" ||
    (v.mtime !== null && typeof v.mtime !== "number")
  ) return null;
  return {
    file: v.file,
    size: v.size,
    mtime: v.mtime as number | null,
    messageId: text(v.messageId),
    parent: text(v.parent),
    root: text(v.root),
    date: text(v.date),
    from: text(v.from),
    subject: text(v.subject) ?? "",
    folder: text(v.folder) ?? "INBOX",
    flags: text(v.flags) ?? "",
    chars: v.chars,
  };
}
