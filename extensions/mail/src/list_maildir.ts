import type { MailAccount } from "./account_types.ts";
import { type MaildirFile, maildirFile } from "./maildir_file.ts";

/**
 * Every message file of the Maildir, in path order: the account listed recursively, page by
 * page, and each file kept when {@link maildirFile} takes it for a message.
 */
export async function listMaildir(account: MailAccount): Promise<MaildirFile[]> {
  const files: MaildirFile[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<MailAccount["list"]>> = await account.list(
      cursor === null ? { recursive: true } : { recursive: true, cursor },
    );
    for (const entry of page.entries) {
      if (entry.kind !== "file") continue;
      const file = maildirFile(entry.path, entry.size, entry.mtime);
      if (file) files.push(file);
    }
    cursor = page.cursor;
  } while (cursor !== null);
  return files.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}
