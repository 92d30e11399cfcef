import type { MailAccount } from "./account_types.ts";
import { type MaildirFile, maildirFile } from "./maildir_file.ts";

/**
 * Every message file of the Maildir, in the listing's path order (segment by segment): the
 * account listed recursively, page by
 * page, and each file kept when {@link maildirFile} takes it for a message.
 *
 * @throws {Error} named `AccountAccessError` when the folder holds no `cur/` or `new/` at all:
 *   it is not a Maildir, and reading it as one would remove every thread read before.
 */
export async function listMaildir(account: MailAccount): Promise<MaildirFile[]> {
  const files: MaildirFile[] = [];
  let maildir = false;
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<MailAccount["list"]>> = await account.list(
      cursor === null ? { recursive: true } : { recursive: true, cursor },
    );
    for (const entry of page.entries) {
      if (entry.kind === "folder" && /(^|\/)(cur|new)$/.test(entry.path)) maildir = true;
      if (entry.kind !== "file") continue;
      const file = maildirFile(entry.path, entry.size, entry.mtime);
      if (file) files.push(file);
    }
    cursor = page.cursor;
  } while (cursor !== null);
  if (!maildir) {
    const error = new Error(
      "The connected folder is not a Maildir: it holds no cur/ or new/ folder, so nothing was " +
        "read and the threads read before are kept. Connect the folder that holds cur/, new/ " +
        "and tmp/ (the one mbsync, offlineimap or notmuch keep).",
    );
    error.name = "AccountAccessError";
    throw error;
  }
  // In the listing's own path order already: sorting 10,000 again in the isolate costs a tenth
  // of a second a step.
  return files;
}
