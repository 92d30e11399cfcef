/**
 * The account a Mail task step is given, over a real fixture Maildir: `list` walks the folder,
 * and `parseMail` answers what the platform's parser would, built from the fixture's ground
 * truth (the parser is the platform's, tested with it) after reading the file, so a vanished or
 * unreadable file fails as it would. Every parsed path is counted.
 *
 * @module
 */

import { join } from "node:path";
import type {
  AccountEntry,
  AccountListing,
  MailAccount,
  Parsed,
  ParsedMessage,
} from "../../../extensions/mail/src/account_types.ts";
import type { MaildirTruth, MessageTruth } from "../../internal/fixture_sources/maildir.ts";

/** The identity of a message path: folder and file name without flags (`new/`/`cur/` dropped). */
export function identity(path: string): string {
  const parts = path.split("/");
  const name = parts.pop()!.replace(/:2,[A-Za-z]*$/, "");
  parts.pop();
  return `${parts.join("/")}/${name}`;
}

/** A fixture Maildir's account, counting what it parses. */
export class MaildirAccount implements MailAccount {
  /** Every path parsed, in order. */
  parsed: string[] = [];
  /** Paths whose read fails as an unreadable file's does (for a test running as root). */
  failing = new Set<string>();
  #truth = new Map<string, MessageTruth>();

  /** `dir` holds the Maildir `truth` describes. */
  constructor(readonly dir: string, truth: MaildirTruth, readonly pageSize = 700) {
    for (const message of truth.messages) this.#truth.set(identity(message.path), message);
  }

  async list(options: { cursor?: string; recursive?: boolean } = {}): Promise<AccountListing> {
    const entries: AccountEntry[] = [];
    const walk = async (rel: string) => {
      for await (const entry of Deno.readDir(join(this.dir, rel))) {
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        const stat = await Deno.stat(join(this.dir, path));
        entries.push({
          path,
          kind: entry.isDirectory ? "folder" : "file",
          size: stat.size,
          mtime: stat.mtime?.getTime() ?? null,
        });
        if (entry.isDirectory && options.recursive) await walk(path);
      }
    };
    await walk("");
    entries.sort((a, b) => a.path < b.path ? -1 : 1);
    const start = options.cursor ? Number(options.cursor) : 0;
    const end = start + this.pageSize;
    return {
      entries: entries.slice(start, end),
      cursor: end < entries.length ? String(end) : null,
    };
  }

  async parseMail(paths: string[]): Promise<Parsed<ParsedMessage>[]> {
    if (paths.length > 32) throw new Error(`parseMail takes 32 paths a call, not ${paths.length}`);
    const out: Parsed<ParsedMessage>[] = [];
    for (const path of paths) {
      this.parsed.push(path);
      const file = join(this.dir, ...path.split("/"));
      let bytes: Uint8Array;
      let mtime: number | null;
      try {
        if (this.failing.has(path)) throw new Deno.errors.PermissionDenied(path);
        bytes = await Deno.readFile(file);
        mtime = (await Deno.stat(file)).mtime?.getTime() ?? null;
      } catch (error) {
        out.push({ path, size: 0, mtime: null, ok: false, reason: (error as Error).name });
        continue;
      }
      const truth = this.#truth.get(identity(path));
      if (!truth || bytes.length === 0) {
        out.push({ path, size: bytes.length, mtime, ok: false, reason: "the file is empty" });
        continue;
      }
      out.push({ path, size: bytes.length, mtime, ok: true, value: parsedOf(truth) });
    }
    return out;
  }
}

/** What the platform's parser reads from a fixture message, by its ground truth. */
export function parsedOf(truth: MessageTruth): ParsedMessage {
  return {
    messageId: truth.messageId,
    inReplyTo: truth.inReplyTo,
    references: truth.references,
    subject: truth.subject ?? "",
    from: truth.fromAddress ? { name: "", address: truth.fromAddress } : null,
    to: [{ name: "Ada Lovelace", address: "ada@example.org" }],
    cc: [],
    date: new Date(truth.mtime * 1000).toISOString(),
    text: truth.snippet ?? "",
    textCut: false,
    attachments: [],
  };
}
